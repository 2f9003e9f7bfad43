package org.coflow.courier.server;

import io.netty.channel.ChannelHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.coflow.courier.auth.KeyRing;
import org.coflow.courier.enforce.PaceTable;
import org.coflow.courier.enforce.PriorityPacer;
import org.coflow.courier.fetch.LocalFetches;
import org.coflow.courier.metrics.DataPlaneMetrics;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.serve.BlockSender;
import org.coflow.courier.transport.Limits;

/** What every accepted connection of one agent shares: who the agent is and what serves peers. */
final class ServerContext {
  final String hostId;
  final KeyRing keys;
  final Limits limits;
  final int chunkSize;
  private final BlockRegistry registry;
  private final LocalFetches fetches;
  private final PriorityPacer link;
  private final PaceTable paces;

  /** Strict priority across this agent's connections to each destination host. */
  private final org.coflow.courier.enforce.DestinationOrder order =
      new org.coflow.courier.enforce.DestinationOrder();

  private final org.coflow.courier.protocol.BudgetShares budget;
  private final DataPlaneMetrics metrics;

  ServerContext(
      String hostId,
      KeyRing keys,
      Limits limits,
      BlockRegistry registry,
      LocalFetches fetches,
      int chunkSize,
      PriorityPacer link,
      PaceTable paces,
      org.coflow.courier.protocol.BudgetShares budget,
      DataPlaneMetrics metrics) {
    this.metrics = metrics;
    this.budget = budget;
    this.hostId = hostId;
    this.keys = keys;
    this.limits = limits;
    this.registry = registry;
    this.fetches = fetches;
    this.chunkSize = chunkSize;
    this.link = link;
    this.paces = paces;
  }

  /**
   * Serves another host's agent (it proved it is {@code dstHost}, or the agent is open) on one of
   * its bulk connections or on its latency {@code lane}: a quarter of the chunk, two of them unsent
   * at most (four whole ones on a bulk connection).
   */
  ChannelHandler sender(String dstHost, boolean lane) {
    return new BlockSender(
        registry,
        lane ? Math.max(1, chunkSize / 4) : chunkSize,
        lane ? 2 : 4,
        link,
        paces,
        order,
        dstHost,
        lane,
        limits.maxStreamsPerConnection(),
        metrics);
  }

  /**
   * Serves a local process whose identity is {@code principal}; its streams are held in {@code
   * share}'s part of the relay budget.
   */
  ChannelHandler session(String principal, String share) {
    return new ClientSession(
        registry,
        fetches,
        principal,
        limits.maxStreamsPerConnection(),
        budget.join(share),
        metrics);
  }

  /** Raises an idle event after {@link Limits#idleTimeoutMillis} without a frame either way. */
  ChannelHandler idle() {
    return new IdleStateHandler(0, 0, limits.idleTimeoutMillis(), TimeUnit.MILLISECONDS);
  }
}
