package org.coflow.sim.engine;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

/**
 * Per coflow slot, its flows as {@link LazyFlowSimulator}'s last loop over Baraat's first class
 * left them, in the coflow's active order: each one's pair key and the rate it moves at (0 for
 * none). Valid for a coflow that was in the class at the last loop and has the same flows: the next
 * loop then reads them in sequence, not each flow's rate at its scattered index.
 */
final class ClassSections {
  private final int ports;
  private Coflow[] coflow = new Coflow[0];
  private int[] count = new int[0];
  private long[] loop = new long[0];
  private int[][] key = new int[0][];
  private double[][] rate = new double[0][];

  /** Coflows whose flows a loop read from their kept section (for tests). */
  long kept;

  ClassSections(int ports) {
    this.ports = ports;
  }

  /**
   * The slot of coflow {@code c}'s section, which has {@code n} flows, made afresh from the state
   * (its flows' rates from {@code flowRate}) unless it was taken in loop {@code previous} with the
   * same flows.
   */
  int take(Coflow c, int n, long previous, double[] flowRate) {
    int s = c.slot();
    if (s >= coflow.length) {
      int len = Math.max(s + 1, Math.max(64, 2 * coflow.length));
      coflow = Arrays.copyOf(coflow, len);
      count = Arrays.copyOf(count, len);
      loop = Arrays.copyOf(loop, len);
      key = Arrays.copyOf(key, len);
      rate = Arrays.copyOf(rate, len);
    }
    if (coflow[s] != c || count[s] != n || loop[s] != previous) {
      if (key[s] == null || key[s].length < n || coflow[s] != c) {
        key[s] = new int[n];
        rate[s] = new double[n];
      }
      int[] keys = key[s];
      double[] rates = rate[s];
      for (int k = 0; k < n; k++) {
        keys[k] = c.activeSrc(k) * ports + c.activeDst(k);
        rates[k] = flowRate[c.activeIndex(k)];
      }
      coflow[s] = c;
      count[s] = n;
    } else {
      kept++;
    }
    loop[s] = previous + 1;
    return s;
  }

  /** The pair keys of section {@code s}'s flows. */
  int[] keys(int s) {
    return key[s];
  }

  /** The rates section {@code s}'s flows move at (the loop over the class updates them). */
  double[] rates(int s) {
    return rate[s];
  }
}
