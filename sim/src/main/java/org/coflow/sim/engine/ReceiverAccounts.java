package org.coflow.sim.engine;

import java.util.Arrays;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;

/**
 * {@link LazyFlowSimulator}'s bytes counted per (coflow, receiver) with moving flows: how many of
 * its flows move and the sum of their rates, so that an event credits each coflow at its receivers
 * ({@link ClusterState#addReceived}) without walking its flows. Dense: an account that loses its
 * last moving flow is closed and the last one takes its place.
 */
final class ReceiverAccounts {
  /** An account's sum is made afresh from its flows after this many updates (rounding drift). */
  static final int RESUM = 64;

  private final int ports;

  private Coflow[] coflow = new Coflow[64];
  private int[] dst = new int[64];
  private int[] flows = new int[64];
  private double[] rate = new double[64];
  private int[] updates = new int[64];
  private int count;

  /** Account + 1 of each (coflow slot, receiver), 0 for none. */
  private int[] of = new int[0];

  /** Accounts summed afresh (for tests). */
  long resums;

  ReceiverAccounts(int ports) {
    this.ports = ports;
  }

  /** Makes room for {@code slots} coflow slots. */
  void admitted(int slots) {
    int need = slots * ports;
    if (of.length < need) {
      of = Arrays.copyOf(of, Math.max(need, 2 * of.length));
    }
  }

  /** The account of flow {@code i}'s (coflow, receiver), opened if {@code open} and missing. */
  int of(ClusterState state, int i, boolean open) {
    int key = state.slotAt(i) * ports + state.dstAt(i);
    int a = of[key] - 1;
    if (a < 0) {
      if (!open) {
        throw new IllegalStateException("no account for " + state.flows().get(i));
      }
      a = count++;
      if (a == rate.length) {
        int len = 2 * a;
        coflow = Arrays.copyOf(coflow, len);
        dst = Arrays.copyOf(dst, len);
        flows = Arrays.copyOf(flows, len);
        rate = Arrays.copyOf(rate, len);
        updates = Arrays.copyOf(updates, len);
      }
      coflow[a] = state.coflowAt(i);
      dst[a] = state.dstAt(i);
      flows[a] = 0;
      rate[a] = 0;
      updates[a] = 0;
      of[key] = a + 1;
    }
    return a;
  }

  /**
   * A flow of account {@code a} went from rate {@code old} to {@code r} (0: it stopped or
   * finished); {@code flowRate} holds every flow's rate, its new one included, for a sum made
   * afresh.
   */
  void change(int a, double old, double r, double[] flowRate) {
    if (old > 0) {
      if (r > 0) {
        rate[a] += r - old;
      } else if (--flows[a] == 0) {
        close(a);
        return;
      } else {
        rate[a] -= old;
      }
    } else {
      rate[a] += r;
      flows[a]++;
    }
    if (++updates[a] >= RESUM) {
      resum(a, flowRate);
    }
  }

  /** Credits every account's coflow at its receiver with {@code seconds} of its summed rate. */
  void credit(ClusterState state, double seconds) {
    for (int a = 0; a < count; a++) {
      state.addReceived(coflow[a], dst[a], rate[a] * seconds);
    }
  }

  /** Per active coflow (by index), the sum of its flows' rates. */
  double[] coflowRates(ClusterState state) {
    double[] sums = new double[state.coflows().size()];
    for (int a = 0; a < count; a++) {
      sums[coflow[a].index()] += rate[a];
    }
    return sums;
  }

  /** Makes account {@code a}'s sum afresh from the rates of its flows. */
  private void resum(int a, double[] flowRate) {
    Coflow c = coflow[a];
    int to = dst[a];
    int[] positions = c.activePositionsTo(to);
    double sum = 0;
    for (int p = 0, m = c.activeFlowsTo(to); p < m; p++) {
      sum += flowRate[c.activeIndex(positions[p])];
    }
    rate[a] = sum;
    updates[a] = 0;
    resums++;
  }

  /** Closes account {@code a} (no flow of it moves any more); the last account takes its place. */
  private void close(int a) {
    of[coflow[a].slot() * ports + dst[a]] = 0;
    int last = --count;
    if (last != a) {
      coflow[a] = coflow[last];
      dst[a] = dst[last];
      flows[a] = flows[last];
      rate[a] = rate[last];
      updates[a] = updates[last];
      of[coflow[a].slot() * ports + dst[a]] = a + 1;
    }
    coflow[last] = null;
  }
}
