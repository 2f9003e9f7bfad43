package org.coflow.sim.engine;

/**
 * The outcome of one simulated run: per coflow (in trace order) its completion time, isolated lower
 * bound, shape and the bytes actually delivered, plus the run's cost.
 */
public record SimResult(
    String policy,
    boolean courier,
    int[] ids,
    double[] arrival,
    double[] cct,
    double[] lowerBound,
    double[] bytes,
    double[] delivered,
    int[] flows,
    double[] longestFlow,
    long events,
    double wallSeconds) {

  public int coflows() {
    return cct.length;
  }

  /** Report label: the policy name, with "+courier" when Courier merging wrapped it. */
  public String label() {
    return courier ? policy + "+courier" : policy;
  }
}
