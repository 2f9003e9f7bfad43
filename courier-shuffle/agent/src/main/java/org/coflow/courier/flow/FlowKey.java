package org.coflow.courier.flow;

import java.util.Objects;

/**
 * One flow as an agent sees it: a coflow's traffic with one peer host (the source host on the
 * fetching side, the destination host on the serving side). Courier's unified flow of a host pair
 * carries one such flow per coflow. Immutable; a map key.
 */
public final class FlowKey {
  private final String coflow;
  private final String peer;
  private final int hash;

  private FlowKey(String coflow, String peer) {
    this.coflow = Objects.requireNonNull(coflow, "coflow");
    this.peer = Objects.requireNonNull(peer, "peer");
    this.hash = 31 * coflow.hashCode() + peer.hashCode();
  }

  public static FlowKey of(String coflow, String peer) {
    return new FlowKey(coflow, peer);
  }

  public String coflow() {
    return coflow;
  }

  /** The other host of the flow. */
  public String peer() {
    return peer;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof FlowKey)) {
      return false;
    }
    FlowKey k = (FlowKey) o;
    return hash == k.hash && coflow.equals(k.coflow) && peer.equals(k.peer);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "coflow=" + coflow + " peer=" + peer;
  }
}
