package org.coflow.master.policy;

import java.util.Arrays;
import org.coflow.api.model.Coflow;

/**
 * {@link Creek}'s view of one coflow: the store's snapshot of its bytes and, per receiver port (a
 * sub-coflow), its service and boost state and where its active flows are counted in the {@link
 * LevelPairCounts}.
 */
final class SubCoflows {
  double snapshot;
  private final double arrival;
  double[] lastServed = new double[0];
  boolean[] servedLast = new boolean[0];

  /** Levels a starving receiver raised the coflow by, the byte level then, and when. */
  int[] boost = new int[0];

  int[] boostBase = new int[0];
  double[] boostedAt = new double[0];

  /**
   * Per receiver port: the level + 1 its active flows are counted at in the pair counts (0: not
   * counted), how many, from which senders, and the coflow's {@link Coflow#changesTo} then.
   */
  private int[] countedAt = new int[0];

  private int[] countedN = new int[0];
  private int[] countedChanges = new int[0];
  private int[][] countedFrom = new int[0][];

  SubCoflows(int ports, double arrival, double snapshot) {
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
    lastServed = Arrays.copyOf(lastServed, ports);
    servedLast = Arrays.copyOf(servedLast, ports);
    boost = Arrays.copyOf(boost, ports);
    boostBase = Arrays.copyOf(boostBase, ports);
    boostedAt = Arrays.copyOf(boostedAt, ports);
    countedAt = Arrays.copyOf(countedAt, ports);
    countedN = Arrays.copyOf(countedN, ports);
    countedChanges = Arrays.copyOf(countedChanges, ports);
    countedFrom = Arrays.copyOf(countedFrom, ports);
    Arrays.fill(lastServed, had, ports, arrival);
    Arrays.fill(boostedAt, had, ports, Double.NEGATIVE_INFINITY);
  }

  /** The level receiver {@code r}'s flows are counted at, or -1 if they are not counted. */
  int countedAt(int r) {
    return countedAt[r] - 1;
  }

  /** How many of receiver {@code r}'s flows are counted. */
  int countedN(int r) {
    return countedN[r];
  }

  /** The senders of receiver {@code r}'s counted flows, in {@code [0, countedN(r))}. */
  int[] countedFrom(int r) {
    return countedFrom[r];
  }

  /** Forgets where its flows were counted (the counts were started afresh). */
  void forgetCounts() {
    Arrays.fill(countedAt, 0);
    Arrays.fill(countedN, 0);
  }

  /**
   * Counts the active flows of {@code c} into {@code r} at {@code level}, unless they are counted
   * there already.
   */
  void recount(Coflow c, int r, int level, LevelPairCounts counts) {
    int changes = c.changesTo(r);
    if (countedAt[r] == level + 1 && countedChanges[r] == changes) {
      return;
    }
    uncount(r, counts);
    int n = c.activeFlowsTo(r);
    int[] from = countedFrom[r];
    if (from == null || from.length < n) {
      from = new int[n];
      countedFrom[r] = from;
    }
    int[] positions = c.activePositionsTo(r);
    int ports = counts.ports();
    for (int i = 0; i < n; i++) {
      int src = c.activeSrc(positions[i]);
      from[i] = src;
      counts.count(level, src * ports + r, 1);
    }
    countedAt[r] = level + 1;
    countedN[r] = n;
    countedChanges[r] = changes;
  }

  /** Takes the flows into {@code r} out of the pair counts, if they are in. */
  void uncount(int r, LevelPairCounts counts) {
    int at = countedAt[r] - 1;
    if (at < 0) {
      return;
    }
    int[] from = countedFrom[r];
    int ports = counts.ports();
    for (int i = 0, n = countedN[r]; i < n; i++) {
      counts.count(at, from[i] * ports + r, -1);
    }
    countedAt[r] = 0;
    countedN[r] = 0;
  }

  /** The number of receiver ports covered. */
  int ports() {
    return countedAt.length;
  }
}
