package org.coflow.courier.server;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import org.coflow.courier.auth.KeyRing;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.enforce.PaceTable;
import org.coflow.courier.enforce.PriorityPacer;
import org.coflow.courier.fetch.LocalFetches;
import org.coflow.courier.protocol.MemoryBudget;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.transport.ConnectionGate;
import org.coflow.courier.transport.Limits;
import org.coflow.courier.transport.TransportContext;

/**
 * An agent's listening socket: every connection starts with the preamble, then frames; its first
 * frame, {@code HELLO}, decides what serves it ({@link ServerHandshake}).
 */
public final class AgentServer implements AutoCloseable {
  private final Channel channel;
  private final ConnectionGate gate;
  private final MemoryBudget budget;

  private final MemoryBudget relayed;

  private AgentServer(
      Channel channel, ConnectionGate gate, MemoryBudget budget, MemoryBudget relayed) {
    this.relayed = relayed;
    this.channel = channel;
    this.gate = gate;
    this.budget = budget;
  }

  /**
   * Binds and starts serving.
   *
   * @param keys the secrets peers may prove (an open ring admits anonymous peers)
   * @param limits the bounds on connections, streams, buffered bytes and timeouts
   * @param fetches where local clients' fetches go (null: this agent serves, but fetches nothing)
   * @param link the host's sending cap
   * @param metrics where the serving side's figures go (the agent's, shared with its fetching side)
   * @throws InterruptedException if interrupted while binding
   */
  public static AgentServer bind(
      TransportContext transport,
      InetSocketAddress address,
      String hostId,
      KeyRing keys,
      Limits limits,
      BlockRegistry registry,
      LocalFetches fetches,
      int chunkSize,
      LinkRate link,
      org.coflow.courier.metrics.DataPlaneMetrics metrics)
      throws InterruptedException {
    // One pace per (fetching host, coflow), shared by all connections from that host.
    PaceTable paces = new PaceTable(chunkSize);
    // The host's sending cap, handed to its connections chunk by chunk in priority order.
    PriorityPacer sending =
        link.limited()
            ? new PriorityPacer(link, transport.group().next())
            : PriorityPacer.UNLIMITED;
    ConnectionGate gate = new ConnectionGate(limits);
    // Two budgets of the same size: peers' unfinished frames cannot starve the streams relayed to
    // local clients, nor those the frames. The relayed one is shared out by client identity.
    MemoryBudget budget = new MemoryBudget(limits.maxBufferedBytes());
    MemoryBudget relayed = new MemoryBudget(limits.maxBufferedBytes());
    ServerContext server =
        new ServerContext(
            hostId,
            keys,
            limits,
            registry,
            fetches,
            chunkSize,
            sending,
            paces,
            new org.coflow.courier.protocol.BudgetShares(relayed),
            metrics);
    return new AgentServer(
        transport.bind(address, gate, budget, () -> new ServerHandshake(server)),
        gate,
        budget,
        relayed);
  }

  /** Accepted connections open now. */
  public int connections() {
    return gate.open();
  }

  /** Connections refused at a bound (connections, handshakes, buffered bytes) since the start. */
  public long refused() {
    return gate.refused() + budget.refused() + relayed.refused();
  }

  /** Bytes of incomplete frames held now, and at most, across accepted connections. */
  public MemoryBudget buffered() {
    return budget;
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
