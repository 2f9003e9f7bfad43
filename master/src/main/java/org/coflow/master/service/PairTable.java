package org.coflow.master.service;

import java.util.Arrays;
import org.coflow.core.model.PairIndex;

/**
 * Per host pair (sender port, receiver port): this round's summed rate and best priority, and what
 * was last pushed, in arrays reused every round and indexed by the pairs' slots (a round touches up
 * to one pair per flow, so maps keyed by host would dominate the push). Memory follows the pairs
 * with flows, not the square of the hosts. Scheduling thread only.
 */
final class PairTable {
  /** Pairs with flows this round, and per slot their summed rate and best priority. */
  private final PairIndex round = new PairIndex();

  private double[] rate = new double[16];
  private int[] priority = new int[16];

  /** Pairs pushed (and not removed) so far, and per slot what was pushed. */
  private final PairIndex pushed = new PairIndex();

  private double[] pushedRate = new double[16];
  private int[] pushedPriority = new int[16];

  /** What {@link #retainTouched} does with a pushed pair that no flow uses any more. */
  interface Removed {
    void pair(int src, int dst);
  }

  /** Starts a round; what was pushed is kept. */
  void reset() {
    round.clear();
  }

  void add(int src, int dst, double r, int p) {
    int held = round.size();
    int k = round.add(src, dst);
    if (round.size() > held) {
      if (k >= rate.length) {
        rate = Arrays.copyOf(rate, Math.max(k + 1, 2 * rate.length));
        priority = Arrays.copyOf(priority, rate.length);
      }
      rate[k] = 0;
      priority[k] = Integer.MAX_VALUE;
    }
    rate[k] += r;
    priority[k] = Math.min(priority[k], p);
  }

  /** Number of pairs with flows this round, at slots {@code 0 .. touched() - 1} (none removed). */
  int touched() {
    return round.size();
  }

  int src(int k) {
    return round.src(k);
  }

  int dst(int k) {
    return round.dst(k);
  }

  double rate(int k) {
    return rate[k];
  }

  int priority(int k) {
    return priority[k];
  }

  /**
   * Whether this round's pair {@code k} needs pushing: never pushed, or pushed with another
   * priority, or with a rate {@code changed} says differs.
   */
  boolean differs(int k, RateChange changed) {
    int q = pushed.find(round.src(k), round.dst(k));
    return q < 0 || pushedPriority[q] != priority[k] || changed.test(pushedRate[q], rate[k]);
  }

  /** Whether two rates differ enough to push the second. */
  interface RateChange {
    boolean test(double before, double now);
  }

  /** Notes this round's pair {@code k} as pushed with its rate and priority. */
  void markPushed(int k) {
    int q = pushed.add(round.src(k), round.dst(k));
    if (q >= pushedRate.length) {
      pushedRate = Arrays.copyOf(pushedRate, Math.max(q + 1, 2 * pushedRate.length));
      pushedPriority = Arrays.copyOf(pushedPriority, pushedRate.length);
    }
    pushedRate[q] = rate[k];
    pushedPriority[q] = priority[k];
  }

  /** Forgets the pushed pairs that have no flow this round, calling {@code removed} for each. */
  void retainTouched(Removed removed) {
    for (int q = 0, end = pushed.slots(); q < end; q++) {
      if (pushed.held(q)) {
        int s = pushed.src(q);
        int d = pushed.dst(q);
        if (round.find(s, d) < 0) {
          pushed.remove(q);
          removed.pair(s, d);
        }
      }
    }
  }
}
