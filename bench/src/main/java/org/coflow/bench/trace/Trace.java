package org.coflow.bench.trace;

import java.util.List;

/**
 * A coflow trace in the coflow-benchmark format (Facebook FB2010-1Hr-150-0 and derivatives): a
 * fabric of {@code ports} ports and coflows in arrival order.
 */
public record Trace(String source, int ports, List<TraceCoflow> coflows) {
  /** The format's megabyte, as the reference simulator reads it. */
  public static final double MB = 1 << 20;

  /** The first {@code n} coflows (all if {@code n} is at least the size). */
  public Trace first(int n) {
    return n >= coflows.size() ? this : new Trace(source, ports, coflows.subList(0, n));
  }
}
