package org.coflow.master.service;

import java.util.Arrays;

/**
 * Per host pair ({@code src * ports + dst}): this round's summed rate and best priority, and what
 * was last pushed, in flat arrays reused every round (a round touches up to one pair per flow, so
 * maps keyed by host would dominate the push). Scheduling thread only.
 */
final class PairTable {
  private int ports;
  double[] rate = new double[0];
  int[] priority = new int[0];
  private boolean[] seen = new boolean[0];

  /** Pairs with flows this round. */
  int[] touched = new int[16];

  int touchedCount;

  double[] pushedRate = new double[0];
  int[] pushedPriority = new int[0];
  boolean[] pushed = new boolean[0];

  /** Pairs pushed (and not removed) so far. */
  int[] pushedKeys = new int[16];

  int pushedCount;

  /** Starts a round over {@code n} ports; keeps what was pushed if the port count is unchanged. */
  void reset(int n) {
    if (n != ports) {
      int[] oldKeys = Arrays.copyOf(pushedKeys, pushedCount);
      double[] oldRate = pushedRate;
      int[] oldPriority = pushedPriority;
      int old = ports;
      ports = n;
      rate = new double[n * n];
      priority = new int[n * n];
      seen = new boolean[n * n];
      pushedRate = new double[n * n];
      pushedPriority = new int[n * n];
      pushed = new boolean[n * n];
      pushedCount = 0;
      for (int k : oldKeys) {
        int moved = (k / old) * n + k % old;
        markPushed(moved, oldRate[k], oldPriority[k]);
      }
    } else {
      for (int k = 0; k < touchedCount; k++) {
        seen[touched[k]] = false;
      }
    }
    touchedCount = 0;
  }

  int ports() {
    return ports;
  }

  void add(int pair, double r, int p) {
    if (!seen[pair]) {
      seen[pair] = true;
      rate[pair] = 0;
      priority[pair] = Integer.MAX_VALUE;
      if (touchedCount == touched.length) {
        touched = Arrays.copyOf(touched, 2 * touchedCount);
      }
      touched[touchedCount++] = pair;
    }
    rate[pair] += r;
    priority[pair] = Math.min(priority[pair], p);
  }

  boolean touchedThisRound(int pair) {
    return seen[pair];
  }

  void markPushed(int pair, double r, int p) {
    if (!pushed[pair]) {
      pushed[pair] = true;
      if (pushedCount == pushedKeys.length) {
        pushedKeys = Arrays.copyOf(pushedKeys, 2 * pushedCount);
      }
      pushedKeys[pushedCount++] = pair;
    }
    pushedRate[pair] = r;
    pushedPriority[pair] = p;
  }

  /** Forgets pushed pairs that {@code keep} rejects; calls {@code removed} for each. */
  void retainPushed(java.util.function.IntPredicate keep, java.util.function.IntConsumer removed) {
    int w = 0;
    for (int k = 0; k < pushedCount; k++) {
      int pair = pushedKeys[k];
      if (keep.test(pair)) {
        pushedKeys[w++] = pair;
      } else {
        pushed[pair] = false;
        removed.accept(pair);
      }
    }
    pushedCount = w;
  }
}
