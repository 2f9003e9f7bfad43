package org.coflow.coda.flow;

import java.net.InetSocketAddress;

/**
 * A flow as the reporter sees it in one pass: a copy, taken under its connection's lock, of what
 * CODA reports (seed 002 §3.1): the two ends, the start, the bytes sent, the mean and variance of
 * write sizes (M_size, V_size) and of the gaps between writes in milliseconds (M_int, V_int), and
 * the engine's label for most of its bytes when it was first reported (null if none).
 */
public final class FlowView {
  public final long id;
  public final InetSocketAddress local;
  public final InetSocketAddress remote;
  public final long startMillis;
  public final long bytes;

  /** No more bytes will come (idle gap or closed connection). */
  public final boolean finished;

  /** Reported for the first time in this pass. */
  public final boolean first;

  public final String label;
  public final double sizeMean;
  public final double sizeVariance;
  public final double gapMeanMillis;
  public final double gapVarianceMillis;

  private FlowView(Connection c, OutFlow f, boolean first) {
    this.first = first;
    this.id = f.id;
    this.local = c.local;
    this.remote = c.remote;
    this.startMillis = f.startMillis;
    this.bytes = f.bytes;
    this.finished = f.finished;
    this.label = f.reportedLabel;
    this.sizeMean = f.sizeMean();
    this.sizeVariance = f.sizeVariance();
    this.gapMeanMillis = f.gapMeanMillis();
    this.gapVarianceMillis = f.gapVarianceMillis();
  }

  static FlowView of(Connection c, OutFlow f, boolean first) {
    return new FlowView(c, f, first);
  }
}
