package org.coflow.sim.report;

import java.util.Arrays;

/**
 * Summary of a set of values (CCTs, lower bounds). Percentiles are nearest-rank: the smallest value
 * with at least p% of the values at or below it.
 */
public record Stats(int count, double avg, double p50, double p95, double p99) {

  public static Stats of(double[] values) {
    int n = values.length;
    if (n == 0) {
      return new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (double x : values) {
      sum += x;
    }
    return new Stats(n, sum / n, rank(sorted, 0.50), rank(sorted, 0.95), rank(sorted, 0.99));
  }

  static double rank(double[] sorted, double p) {
    int k = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, k))];
  }
}
