package org.coflow.courier.client;

import java.util.Objects;
import org.coflow.courier.protocol.HostPort;

/** Another host's agent, as a fetch names it: the host id it serves as, and where it listens. */
public final class RemoteAgent {
  private final String hostId;
  private final HostPort address;

  public RemoteAgent(String hostId, HostPort address) {
    this.hostId = Objects.requireNonNull(hostId);
    this.address = Objects.requireNonNull(address);
  }

  public String hostId() {
    return hostId;
  }

  public HostPort address() {
    return address;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RemoteAgent
        && ((RemoteAgent) o).hostId.equals(hostId)
        && ((RemoteAgent) o).address.equals(address);
  }

  @Override
  public int hashCode() {
    return Objects.hash(hostId, address);
  }

  @Override
  public String toString() {
    return "agent of host " + hostId + " at " + address;
  }
}
