package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

/**
 * Where one coflow's active flows are counted in a {@link LevelPairCounts}, per receiver port: at
 * which level, how many, from which senders, and the coflow's {@link Coflow#changesTo} then, so
 * that a receiver's flows are counted again only when its level or its flows change. {@link Creek}
 * keeps one per coflow ({@link SubCoflows}) for its levels, {@link Baraat} one per coflow of its
 * first class.
 */
class CountedFlows {
  /**
   * Per receiver port: the level + 1 its active flows are counted at in the pair counts (0: not
   * counted), how many, from which senders, and the coflow's {@link Coflow#changesTo} then.
   */
  private int[] countedAt = new int[0];

  private int[] countedN = new int[0];
  private int[] countedChanges = new int[0];
  private int[][] countedFrom = new int[0][];

  /**
   * Per receiver port: the counts' {@link LevelPairCounts#clock} when its flows were last counted
   * or uncounted (a sum over its counted senders made later still holds for them).
   */
  private long[] countedClock = new long[0];

  CountedFlows(int ports) {
    coverCounts(ports);
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

  /** The counts' clock when receiver {@code r}'s flows were last counted or uncounted. */
  long countedClock(int r) {
    return countedClock[r];
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
    countedClock[r] = counts.clock();
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
    countedClock[r] = counts.clock();
  }

  /** Takes the flows into every receiver out of the pair counts (the coflow leaves them). */
  void uncountAll(LevelPairCounts counts) {
    for (int r = 0; r < countedAt.length; r++) {
      uncount(r, counts);
    }
  }

  /** Sizes the per-receiver counts to a fabric of {@code ports} ports (never shrinks them). */
  final void coverCounts(int ports) {
    if (ports <= countedAt.length) {
      return;
    }
    countedAt = Arrays.copyOf(countedAt, ports);
    countedN = Arrays.copyOf(countedN, ports);
    countedChanges = Arrays.copyOf(countedChanges, ports);
    countedClock = Arrays.copyOf(countedClock, ports);
    countedFrom = Arrays.copyOf(countedFrom, ports);
  }
}
