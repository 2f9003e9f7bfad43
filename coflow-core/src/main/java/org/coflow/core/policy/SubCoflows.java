package org.coflow.core.policy;

import java.util.Arrays;

/**
 * {@link Creek}'s view of one coflow: the store's snapshot of its bytes and, per receiver port (a
 * sub-coflow), its service and boost state, and (as {@link CountedFlows}) where its active flows
 * are counted in the {@link LevelPairCounts}.
 */
final class SubCoflows extends CountedFlows {
  double snapshot;
  private final double arrival;
  double[] lastServed = new double[0];
  boolean[] servedLast = new boolean[0];

  /** Levels a starving receiver raised the coflow by, the byte level then, and when. */
  int[] boost = new int[0];

  int[] boostBase = new int[0];
  double[] boostedAt = new double[0];

  SubCoflows(int ports, double arrival, double snapshot) {
    super(0);
    this.snapshot = snapshot;
    this.arrival = arrival;
    cover(ports);
  }

  /**
   * Sizes the per-port state to the fabric, which in the live master grows as hosts join: a coflow
   * may gain receivers on ports that did not exist when it arrived.
   */
  void cover(int ports) {
    int had = lastServed.length;
    if (ports <= had) {
      return;
    }
    coverCounts(ports);
    lastServed = Arrays.copyOf(lastServed, ports);
    servedLast = Arrays.copyOf(servedLast, ports);
    boost = Arrays.copyOf(boost, ports);
    boostBase = Arrays.copyOf(boostBase, ports);
    boostedAt = Arrays.copyOf(boostedAt, ports);
    Arrays.fill(lastServed, had, ports, arrival);
    Arrays.fill(boostedAt, had, ports, Double.NEGATIVE_INFINITY);
  }
}
