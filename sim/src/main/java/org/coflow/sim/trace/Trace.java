package org.coflow.sim.trace;

import java.util.List;

/**
 * A coflow trace in the coflow-benchmark format (Facebook FB2010-1Hr-150-0 and derivatives): a
 * fabric of {@code ports} ports and coflows in arrival order.
 *
 * <p>The reader ({@link TraceParser}) refuses a trace beyond the bounds below before it allocates
 * anything sized from it. They are set by what the simulators can hold and compute exactly, far
 * above the shipped trace (150 ports, 526 coflows, reducers up to 232,145 MB, one hour).
 */
public record Trace(String source, int ports, List<TraceCoflow> coflows) {
  /** The format's megabyte, as the reference simulator reads it. */
  public static final double MB = 1 << 20;

  /**
   * The most ports a trace may declare. The simulators keep a table per (sender, receiver) pair
   * keyed by {@code sender * ports + receiver} in an int (at most 46,340 ports), and fair sharing's
   * table costs 8 bytes a pair: 800 MB at 10,000 ports, a large share of the launcher's 6 GB heap.
   */
  public static final int MAX_PORTS = 10_000;

  /** The most coflows a trace may declare (19,000 times the shipped trace's 526). */
  public static final int MAX_COFLOWS = 10_000_000;

  /**
   * The most (coflow, port) pairs, ports times coflows: the simulators number them in an int too
   * (per coflow and receiver, or per active coflow and port).
   */
  public static final long MAX_COFLOW_PORTS = Integer.MAX_VALUE;

  /**
   * The largest reducer size in MB (about 1 PiB). Its bytes, 1e9 * 2^20 = 1.05e15, stay below 2^53,
   * where a double still counts single bytes, so the fluid simulation's remaining bytes and every
   * sum over a trace stay exact to the byte and finite (a size of 1e308 MB is Infinity bytes and
   * gives Infinity CCTs). Larger values are almost always bytes or bits written as MB.
   */
  public static final double MAX_REDUCER_MB = 1e9;

  /**
   * The latest arrival, in ms from the trace's start (10^11 ms, about 3.2 years): arrival seconds
   * then keep sub-microsecond resolution in a double, and arrival nanoseconds fit a long.
   */
  public static final long MAX_ARRIVAL_MS = 100_000_000_000L;

  /** The first {@code n} coflows (all if {@code n} is at least the size). */
  public Trace first(int n) {
    return n >= coflows.size() ? this : new Trace(source, ports, coflows.subList(0, n));
  }
}
