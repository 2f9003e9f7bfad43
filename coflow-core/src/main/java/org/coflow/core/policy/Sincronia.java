package org.coflow.core.policy;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.PolicyType;

/**
 * Sincronia: Bottleneck-Select-Scale-Iterate (BSSI) ordering of coflows with greedy per-flow rate
 * allocation in that order (an ORDER policy; clairvoyant).
 *
 * <p>BSSI, from last place to first: take the port (uplink or downlink) with the most remaining
 * bytes over the unordered coflows; among the coflows using it, put last the one minimising weight
 * / bytes-on-that-port; scale the other coflows' weights down by that coflow's weight times their
 * share of the port's bytes relative to it; repeat.
 *
 * <p>Decisions:
 *
 * <ul>
 *   <li>Online use: the order is recomputed whenever a coflow arrives or finishes (the membership
 *       changes, or a coflow gains a flow), from the remaining bytes at that moment; between such
 *       events it is kept (the paper's online variant recomputes per epoch; arrivals are the
 *       natural epochs of an event-driven run).
 *   <li>Ties in the argmin put the later arrival last; coflows weigh 1 unless registered with a
 *       weight.
 *   <li>Greedy allocation: in coflow order, each flow takes what both its ports have left; inside a
 *       coflow, flows go in their listed order. This is work-conserving by itself.
 *   <li>Coflows with flows of unknown size are put after all ordered coflows, in arrival order.
 * </ul>
 */
public final class Sincronia extends AbstractPolicy {
  private long orderedVersion = -1;
  private List<Coflow> order = new ArrayList<>();

  @Override
  public String name() {
    return "sincronia";
  }

  @Override
  public PolicyType type() {
    return PolicyType.ORDER;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    if (state.membershipVersion() != orderedVersion) {
      order = bssi(state);
      orderedVersion = state.membershipVersion();
    }
    int rank = 0;
    for (Coflow c : order) {
      appendCoflow(c, rank++, schedule);
      allocator().greedy(c, budget, schedule);
    }
  }

  /** The BSSI order of the active coflows, most important first. */
  static List<Coflow> bssi(ClusterState state) {
    int ports = state.fabric().size();
    List<Coflow> known = new ArrayList<>();
    List<Coflow> unknown = new ArrayList<>();
    for (Coflow c : state.coflows()) {
      (c.sizesKnown() ? known : unknown).add(c);
    }
    int n = known.size();
    double[][] load = new double[n][2 * ports];
    double[] total = new double[2 * ports];
    double[] weight = new double[n];
    boolean[] placed = new boolean[n];
    for (int j = 0; j < n; j++) {
      Coflow c = known.get(j);
      weight[j] = c.weight();
      for (int i = 0, m = c.activeCount(); i < m; i++) {
        double rem = c.activeRemaining(i);
        load[j][c.activeSrc(i)] += rem;
        load[j][ports + c.activeDst(i)] += rem;
      }
      for (int r = 0; r < 2 * ports; r++) {
        total[r] += load[j][r];
      }
    }
    Coflow[] result = new Coflow[n];
    for (int k = n - 1; k >= 0; k--) {
      int b = 0;
      for (int r = 1; r < 2 * ports; r++) {
        if (total[r] > total[b]) {
          b = r;
        }
      }
      int last = -1;
      double best = Double.POSITIVE_INFINITY;
      for (int j = 0; j < n; j++) {
        if (!placed[j] && load[j][b] > 0) {
          double v = weight[j] / load[j][b];
          if (v <= best) {
            best = v;
            last = j;
          }
        }
      }
      if (last < 0) {
        // Only coflows without remaining bytes are left: keep them in arrival order.
        for (int j = n - 1; j >= 0; j--) {
          if (!placed[j]) {
            last = j;
            break;
          }
        }
      } else {
        double scale = weight[last] / load[last][b];
        for (int j = 0; j < n; j++) {
          if (!placed[j] && j != last) {
            weight[j] -= scale * load[j][b];
          }
        }
      }
      placed[last] = true;
      result[k] = known.get(last);
      for (int r = 0; r < 2 * ports; r++) {
        total[r] -= load[last][r];
      }
    }
    List<Coflow> ordered = new ArrayList<>(n + unknown.size());
    for (Coflow c : result) {
      ordered.add(c);
    }
    ordered.addAll(unknown);
    return ordered;
  }
}
