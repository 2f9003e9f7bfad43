package org.coflow.courier.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What an agent's data plane measures about itself, where a slow shuffle would show: how long a
 * fetched block waits for a connection, how long until its first byte arrives, how long a served
 * block waits in the sending queue, how late the pace timer fires, and how many wire streams each
 * reader (a task) opens. One instance per agent, shared by its fetching and serving sides;
 * thread-safe and cheap (a few atomic adds per block).
 */
public final class DataPlaneMetrics {
  /** Fetching: from a block's request until it is handed to a connection. */
  public final Histogram dispatchWait = new Histogram();

  /** Fetching: from a block's request until its first byte arrived (its end, if empty). */
  public final Histogram firstByte = new Histogram();

  /** Fetching: from a block's request until its last byte arrived and was verified. */
  public final Histogram fetchTime = new Histogram();

  /** The same two for the blocks that went on a latency lane. */
  public final Histogram laneFirstByte = new Histogram();

  public final Histogram laneFetchTime = new Histogram();

  /** Serving: from a block's request until its first chunk was written to the connection. */
  public final Histogram serveWait = new Histogram();

  /** The same for the blocks a latency lane served. */
  public final Histogram laneServeWait = new Histogram();

  /** Fetching: the dispatch wait of the blocks that went on a latency lane. */
  public final Histogram laneDispatchWait = new Histogram();

  /** Serving: how long finding a requested block's file, range and checksums took. */
  public final Histogram resolve = new Histogram();

  /** Serving: how much later than due the pace timer let a paced coflow send. */
  public final Histogram paceLateness = new Histogram();

  /** Wire streams this agent fetched from other agents. */
  public final LongAdder streams = new LongAdder();

  /** Of those, the streams that went on a peer's latency lane. */
  public final LongAdder laneStreams = new LongAdder();

  /** Streams local clients asked for, and the readers (tasks) that asked. */
  public final LongAdder clientStreams = new LongAdder();

  public final LongAdder clientReaders = new LongAdder();

  /** Blocks this agent served to other agents. */
  public final LongAdder served = new LongAdder();

  /**
   * Every figure by a stable name, times in milliseconds: {@code NAME.count}, {@code .mean}, {@code
   * .p50}, {@code .p99}, {@code .max} per histogram, then the counters.
   */
  public Map<String, Number> snapshot() {
    Map<String, Number> m = new LinkedHashMap<>();
    put(m, "dispatchWait", dispatchWait);
    put(m, "laneDispatchWait", laneDispatchWait);
    put(m, "firstByte", firstByte);
    put(m, "fetchTime", fetchTime);
    put(m, "laneFirstByte", laneFirstByte);
    put(m, "laneFetchTime", laneFetchTime);
    put(m, "resolve", resolve);
    put(m, "serveWait", serveWait);
    put(m, "laneServeWait", laneServeWait);
    put(m, "paceLateness", paceLateness);
    m.put("streams", streams.sum());
    m.put("laneStreams", laneStreams.sum());
    m.put("clientStreams", clientStreams.sum());
    m.put("clientReaders", clientReaders.sum());
    long readers = clientReaders.sum();
    m.put("streamsPerReader", readers == 0 ? 0.0 : (double) clientStreams.sum() / readers);
    m.put("served", served.sum());
    return m;
  }

  private static void put(Map<String, Number> m, String name, Histogram h) {
    Histogram.Snapshot s = h.snapshot();
    m.put(name + ".count", s.count());
    m.put(name + ".mean", round(s.meanMillis()));
    m.put(name + ".p50", round(s.quantileMillis(0.5)));
    m.put(name + ".p99", round(s.quantileMillis(0.99)));
    m.put(name + ".max", round(s.maxMillis()));
  }

  private static double round(double millis) {
    return Math.round(millis * 1000) / 1000.0;
  }

  /** One line, {@code name=value} pairs separated by spaces (for logs and line protocols). */
  public String line() {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Number> e : snapshot().entrySet()) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(e.getKey()).append('=').append(e.getValue());
    }
    return sb.toString();
  }
}
