package org.coflow.courier.server;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.enforce.PaceTable;
import org.coflow.courier.enforce.PriorityPacer;
import org.coflow.courier.fetch.LocalFetches;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.transport.TransportContext;

/**
 * An agent's listening socket: every connection starts with the preamble, then frames; its first
 * frame, {@code HELLO}, decides what serves it ({@link ServerHandshake}).
 */
public final class AgentServer implements AutoCloseable {
  private final Channel channel;

  private AgentServer(Channel channel) {
    this.channel = channel;
  }

  /**
   * Binds and starts serving.
   *
   * @param fetches where local clients' fetches go (null: this agent serves, but fetches nothing)
   * @param link the host's sending cap
   * @throws InterruptedException if interrupted while binding
   */
  public static AgentServer bind(
      TransportContext transport,
      InetSocketAddress address,
      String hostId,
      BlockRegistry registry,
      LocalFetches fetches,
      int chunkSize,
      LinkRate link)
      throws InterruptedException {
    // One pace per (fetching host, coflow), shared by all connections from that host.
    PaceTable paces = new PaceTable(chunkSize);
    // The host's sending cap, handed to its connections chunk by chunk in priority order.
    PriorityPacer sending =
        link.limited()
            ? new PriorityPacer(link, transport.group().next())
            : PriorityPacer.UNLIMITED;
    return new AgentServer(
        transport.bind(
            address,
            () -> new ServerHandshake(hostId, registry, chunkSize, fetches, sending, paces)));
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
