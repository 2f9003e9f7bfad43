package org.coflow.master.service;

import java.util.Arrays;

/**
 * The last {@code capacity} samples of a duration, for quantiles over recent rounds, and a
 * cumulative histogram for Prometheus. Thread-safe.
 */
final class LatencyWindow {
  /** Histogram bucket upper bounds in milliseconds. */
  static final double[] BUCKETS_MS = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000};

  private final double[] samples;
  private int next;
  private int size;
  private final long[] bucketCounts = new long[BUCKETS_MS.length];
  private long count;
  private double sumMs;

  LatencyWindow(int capacity) {
    this.samples = new double[capacity];
  }

  synchronized void add(double ms) {
    samples[next] = ms;
    next = (next + 1) % samples.length;
    size = Math.min(size + 1, samples.length);
    for (int b = 0; b < BUCKETS_MS.length; b++) {
      if (ms <= BUCKETS_MS[b]) {
        bucketCounts[b]++;
      }
    }
    count++;
    sumMs += ms;
  }

  /** The {@code q} quantile (0..1) of the samples in the window, or NaN when empty. */
  synchronized double quantile(double q) {
    if (size == 0) {
      return Double.NaN;
    }
    double[] sorted = Arrays.copyOf(samples, size);
    Arrays.sort(sorted);
    int i = (int) Math.ceil(q * size) - 1;
    return sorted[Math.max(0, Math.min(size - 1, i))];
  }

  synchronized void reset() {
    next = 0;
    size = 0;
  }

  /** Appends this histogram in the Prometheus text format, in seconds. */
  synchronized void appendPrometheus(StringBuilder out, String name, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" histogram\n");
    for (int b = 0; b < BUCKETS_MS.length; b++) {
      out.append(name)
          .append("_bucket{le=\"")
          .append(BUCKETS_MS[b] / 1000)
          .append("\"} ")
          .append(bucketCounts[b])
          .append('\n');
    }
    out.append(name).append("_bucket{le=\"+Inf\"} ").append(count).append('\n');
    out.append(name).append("_sum ").append(sumMs / 1000).append('\n');
    out.append(name).append("_count ").append(count).append('\n');
  }
}
