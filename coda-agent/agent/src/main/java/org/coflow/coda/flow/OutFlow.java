package org.coflow.coda.flow;

import java.util.HashMap;
import java.util.Map;
import org.coflow.coda.pace.TokenBucket;

/**
 * One flow: what one connection sends between two idle gaps. Holds the counters CODA reports
 * (start, bytes, the mean and variance of write sizes and of the gaps between writes, seed 002
 * §3.1), the bytes sent under each label, and the flow's pace. Guarded by its {@link Connection}.
 */
public final class OutFlow {
  final long id;
  final long startMillis;
  long bytes;
  long lastNanos;

  /** The last write, or the last time the agent held a write back (the flow is not idle then). */
  long activeNanos;

  /** Welford's running mean and sum of squared deviations. */
  private long writes;

  private double sizeMean;
  private double sizeM2;
  private long gaps;
  private double gapMean;
  private double gapM2;

  private final Map<String, Long> labelBytes = new HashMap<>(2);

  /** The label when the flow was first reported (labelled mode's coflow id). */
  String reportedLabel;

  /** Reported to the master (crossed the pruning threshold). */
  boolean reported;

  /** Waiting in the quick pass's queue. */
  boolean queued;

  /** Bytes as last reported. */
  long reportedBytes;

  /** No more bytes will be added (idle gap, closed connection); tell the master once. */
  boolean finished;

  /** When the flow passed its first queue (System.nanoTime), 0 before. */
  long firstQueueDoneNanos;

  /** The pace the master set, or null: not paced. */
  TokenBucket pace;

  OutFlow(long id, long nowMillis, long nowNanos) {
    this.id = id;
    this.startMillis = nowMillis;
    this.lastNanos = nowNanos;
    this.activeNanos = nowNanos;
  }

  void add(long n, long nowNanos, String label) {
    if (writes > 0) {
      double gap = (nowNanos - lastNanos) / 1e6;
      gaps++;
      double d = gap - gapMean;
      gapMean += d / gaps;
      gapM2 += d * (gap - gapMean);
    }
    writes++;
    double d = n - sizeMean;
    sizeMean += d / writes;
    sizeM2 += d * (n - sizeMean);
    bytes += n;
    lastNanos = nowNanos;
    activeNanos = nowNanos;
    if (label != null) {
      labelBytes.merge(label, n, Long::sum);
    }
  }

  double sizeMean() {
    return sizeMean;
  }

  double sizeVariance() {
    return writes > 1 ? sizeM2 / (writes - 1) : 0;
  }

  double gapMeanMillis() {
    return gapMean;
  }

  double gapVarianceMillis() {
    return gaps > 1 ? gapM2 / (gaps - 1) : 0;
  }

  /** The label most of the flow's bytes went under, or null. */
  String majorityLabel() {
    String best = null;
    long most = 0;
    for (Map.Entry<String, Long> e : labelBytes.entrySet()) {
      if (e.getValue() > most) {
        most = e.getValue();
        best = e.getKey();
      }
    }
    return best;
  }
}
