package org.coflow.core.identify;

import java.util.HashMap;
import java.util.Map;

/**
 * Identification accuracy as CODA defines it (seed 002 §6.1): the precision of an identified coflow
 * is the fraction of its flows that truly belong to the coflow most of them belong to; the recall
 * of a true coflow is the fraction of its flows found in the identified coflow that holds most of
 * them. Both are averaged over flows (each coflow weighted by its flow count), which the paper
 * leaves open; per-coflow averages are also given.
 */
public final class Accuracy {
  private final double precision;
  private final double recall;
  private final double coflowPrecision;
  private final double coflowRecall;
  private final int flows;

  public Accuracy(
      double precision, double recall, double coflowPrecision, double coflowRecall, int flows) {
    this.precision = precision;
    this.recall = recall;
    this.coflowPrecision = coflowPrecision;
    this.coflowRecall = coflowRecall;
    this.flows = flows;
  }

  public double precision() {
    return precision;
  }

  public double recall() {
    return recall;
  }

  public double coflowPrecision() {
    return coflowPrecision;
  }

  public double coflowRecall() {
    return coflowRecall;
  }

  public int flows() {
    return flows;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Accuracy)) {
      return false;
    }
    Accuracy x = (Accuracy) o;
    return Double.compare(precision, x.precision) == 0
        && Double.compare(recall, x.recall) == 0
        && Double.compare(coflowPrecision, x.coflowPrecision) == 0
        && Double.compare(coflowRecall, x.coflowRecall) == 0
        && flows == x.flows;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(precision, recall, coflowPrecision, coflowRecall, flows);
  }

  @Override
  public String toString() {
    return "Accuracy[precision="
        + precision
        + ", recall="
        + recall
        + ", coflowPrecision="
        + coflowPrecision
        + ", coflowRecall="
        + coflowRecall
        + ", flows="
        + flows
        + "]";
  }

  /** Compares {@code found} (flow → identified id) with {@code truth} (flow → true coflow). */
  public static Accuracy of(Map<Long, Long> found, Map<Long, String> truth) {
    Map<Long, Map<String, Integer>> byCluster = new HashMap<>();
    Map<String, Map<Long, Integer>> byCoflow = new HashMap<>();
    int n = 0;
    for (Map.Entry<Long, Long> e : found.entrySet()) {
      String t = truth.get(e.getKey());
      if (t == null) {
        throw new IllegalArgumentException("flow " + e.getKey() + " has no true coflow");
      }
      byCluster.computeIfAbsent(e.getValue(), k -> new HashMap<>()).merge(t, 1, Integer::sum);
      byCoflow.computeIfAbsent(t, k -> new HashMap<>()).merge(e.getValue(), 1, Integer::sum);
      n++;
    }
    if (n == 0) {
      return new Accuracy(1, 1, 1, 1, 0);
    }
    double[] p = purity(byCluster);
    double[] r = purity(byCoflow);
    return new Accuracy(p[0] / n, r[0] / n, p[1], r[1], n);
  }

  /** {sum over groups of their largest part, mean over groups of largest part / size}. */
  private static <K, V> double[] purity(Map<K, Map<V, Integer>> groups) {
    double sum = 0;
    double mean = 0;
    for (Map<V, Integer> parts : groups.values()) {
      int max = 0;
      int size = 0;
      for (int c : parts.values()) {
        max = Math.max(max, c);
        size += c;
      }
      sum += max;
      mean += (double) max / size;
    }
    return new double[] {sum, mean / groups.size()};
  }
}
