package org.coflow.core.policy;

/**
 * {@link Creek}'s rate per (coflow, receiver) when its levels are filled by group: the sum of its
 * counted senders' pair rates at its level, kept from one decision to the next. A sum is made again
 * only if its counted senders, their level or one of that level's pair rates into the receiver
 * changed since it was last made: else it is the same additions of the same rates in the same
 * order.
 */
final class GroupSums {
  /**
   * By {@code slot * ports + receiver}, as last summed: the level + 1 of the (coflow, receiver)'s
   * counted flows (0 if never summed), the counts' clock then, and the sum of their pair rates.
   */
  private int[] level = new int[0];

  private long[] clock = new long[0];
  private double[] sum = new double[0];

  /** The counts the sums were read from (null once those are dropped). */
  private LevelPairCounts of;

  /** False (tests only) to make every sum afresh. */
  private boolean keep = true;

  /** Sums kept from the last decision, and made afresh (for tests). */
  private long kept;

  private long made;

  /**
   * Starts a decision's sums from {@code counts} for keys below {@code keys} (forgetting every sum
   * if the counts were replaced); returns the counts' clock for {@link #sum}.
   */
  long start(LevelPairCounts counts, int keys) {
    if (of != counts || level.length < keys) {
      int len = Math.max(level.length, keys);
      level = new int[len];
      clock = new long[len];
      sum = new double[len];
      of = counts;
    }
    return counts.tick();
  }

  /**
   * The rate receiver {@code r} gets from the flows {@code s} counted into it ({@code key} is its
   * (coflow, receiver)), kept or made afresh at clock {@code now}; 0 if none is counted.
   */
  double sum(int key, SubCoflows s, int r, LevelPairCounts counts, long now) {
    int at = s.countedAt(r);
    if (at < 0) {
      return 0;
    }
    if (keep
        && level[key] == at + 1
        && clock[key] >= s.countedClock(r)
        && clock[key] >= counts.columnChanged(at, r)) {
      kept++;
      return sum[key];
    }
    made++;
    int ports = counts.ports();
    double[] rates = counts.rates();
    int into = counts.base(at) + r;
    int[] from = s.countedFrom(r);
    double total = 0;
    for (int i = 0, n = s.countedN(r); i < n; i++) {
      total += rates[into + from[i] * ports];
    }
    level[key] = at + 1;
    clock[key] = now;
    sum[key] = total;
    return total;
  }

  /** Forgets the counts the sums were read from (they were dropped). */
  void drop() {
    of = null;
  }

  /** Whether sums that still hold are kept (tests turn it off). */
  void keep(boolean on) {
    keep = on;
  }

  long kept() {
    return kept;
  }

  long made() {
    return made;
  }
}
