package org.apache.spark.shuffle.courier;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.spark.metrics.source.Source;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.LocalAgent;

/**
 * What one JVM's {@link CourierShuffleManager} did, for operators and tests alike: reduce tasks
 * that read through the agents and that fell back to Spark's own fetch, runs of partitions read as
 * one stream (batch fetch), blocks of other executors on the host read from their files, the bytes
 * this executor's agent fetched from other agents, and its connection budget and use. Registered
 * with Spark's metrics system as the source {@code CourierShuffle}, so every configured sink (JMX,
 * CSV, Prometheus servlet) reports it per executor; tests read it through {@link
 * CourierShuffleManager#metrics()} in the executor. Thread-safe.
 */
public final class CourierShuffleMetrics implements Source {
  private final LongAdder readsThroughAgents = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();
  private final LongAdder batchedReads = new LongAdder();
  private final LongAdder hostDiskBlocks = new LongAdder();
  private final MetricRegistry registry = new MetricRegistry();
  private volatile Supplier<LocalAgent> agent = () -> null;

  /** What agents this JVM ran before the current one (restarted, or stopped with Spark) did. */
  private final LongAdder retiredBytes = new LongAdder();

  private volatile int retiredBudget;
  private volatile int retiredMaxConnections;

  CourierShuffleMetrics() {
    registry.register("readsThroughAgents", (Gauge<Long>) readsThroughAgents::sum);
    registry.register("fallbacks", (Gauge<Long>) fallbacks::sum);
    registry.register("batchedReads", (Gauge<Long>) batchedReads::sum);
    registry.register("hostDiskBlocks", (Gauge<Long>) hostDiskBlocks::sum);
    registry.register("bytesFetchedFromPeers", (Gauge<Long>) this::bytesFetchedFromPeers);
    registry.register("connectionBudget", (Gauge<Integer>) this::connectionBudget);
    registry.register("maxDataConnections", (Gauge<Integer>) this::maxDataConnections);
    registry.register("authenticated", (Gauge<Integer>) this::authenticated);
  }

  /**
   * 1 when the embedded agent admits only peers proving the application's secret ({@code
   * spark.authenticate}), else 0 (no agent, or one open to anyone).
   */
  public int authenticated() {
    CourierAgent a = embedded();
    return a != null && !a.keys().isOpen() ? 1 : 0;
  }

  @Override
  public String sourceName() {
    return "CourierShuffle";
  }

  @Override
  public MetricRegistry metricRegistry() {
    return registry;
  }

  /** Reduce tasks of this JVM that read their shuffle blocks through the agents. */
  public long readsThroughAgents() {
    return readsThroughAgents.sum();
  }

  /** Reduce tasks of this JVM that read with Spark's own fetch instead of the agents. */
  public long fallbacks() {
    return fallbacks.sum();
  }

  /** Runs of consecutive partitions of one map output read as one stream. */
  public long batchedReads() {
    return batchedReads.sum();
  }

  /**
   * Blocks of other executors on this host that reduce tasks read from those executors' files
   * rather than through the agents ({@code spark.shuffle.readHostLocalDisk}).
   */
  public long hostDiskBlocks() {
    return hostDiskBlocks.sum();
  }

  /** Bytes this JVM's embedded agent fetched from other executors' agents (0 without one). */
  public long bytesFetchedFromPeers() {
    LocalAgent a = agent.get();
    return retiredBytes.sum() + (a == null ? 0 : a.bytesFetchedFromPeers());
  }

  /**
   * The embedded agent's MaxNum, as configured ({@code spark.shuffle.courier.maxNum}; 0 without
   * one).
   */
  public int connectionBudget() {
    CourierAgent a = embedded();
    return a == null ? retiredBudget : a.connectionBudget();
  }

  /** The most data connections the embedded agent held at once (0 without one). */
  public int maxDataConnections() {
    CourierAgent a = embedded();
    return Math.max(retiredMaxConnections, a == null ? 0 : a.maxDataConnections());
  }

  /**
   * Keeps what {@code old} did before it goes away (restarted, or stopped with Spark, before the
   * metrics system's last report), so that the counters only ever grow.
   */
  synchronized void retire(LocalAgent old) {
    retiredBytes.add(old.bytesFetchedFromPeers());
    CourierAgent a = old.embedded();
    if (a != null) {
      retiredBudget = a.connectionBudget();
      retiredMaxConnections = Math.max(retiredMaxConnections, a.maxDataConnections());
    }
  }

  private CourierAgent embedded() {
    LocalAgent a = agent.get();
    return a == null ? null : a.embedded();
  }

  void readThroughAgents() {
    readsThroughAgents.increment();
  }

  void fellBack() {
    fallbacks.increment();
  }

  void readFromHostDisk() {
    hostDiskBlocks.increment();
  }

  void batched(long runs) {
    batchedReads.add(runs);
  }

  /**
   * Where the agent's gauges come from: the executor's current agent (it may be restarted), or
   * null.
   */
  void agent(Supplier<LocalAgent> current) {
    this.agent = current;
  }
}
