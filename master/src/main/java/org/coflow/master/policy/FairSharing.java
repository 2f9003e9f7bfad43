package org.coflow.master.policy;

import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.Fabric;
import org.coflow.api.model.PolicyType;

/**
 * Per-flow max-min fair sharing: the baseline every other policy is normalised to.
 *
 * <p>True water-filling over sender and receiver ports (what an ideal per-flow transport such as
 * RCP converges to): unlike the reference simulator coflowsim's FAIR, which gives each flow {@code
 * min(C/n_src, C/n_dst)} and leaves capacity idle, capacity a flow cannot use because of its other
 * end goes to the other flows. It is therefore a stronger baseline, and the normalised gains of
 * coflow policies against it are smaller than against coflowsim's.
 */
public final class FairSharing extends AbstractPolicy {
  @Override
  public String name() {
    return "fair";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  private int[] src = new int[0];
  private int[] dst = new int[0];
  private int[] count = new int[0];
  private double[] rate = new double[0];
  private double[] rateOfPair = new double[0];

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    // One class, listed coflow by coflow (one segment each, not one per flow): the order is the
    // coflows' arrival order.
    for (Coflow c : state.coflows()) {
      appendCoflow(c, 0, schedule);
    }
    // Water-filling gives every flow on one (sender, receiver) pair the same rate, whatever its
    // coflow: fill the pairs that have active flows, with their number of flows, and hand each
    // flow its pair's rate. The same rates as filling flow by flow, at the cost of the pairs.
    int ports = state.fabric().size();
    if (rateOfPair.length != ports * ports) {
      src = new int[ports * ports];
      dst = new int[ports * ports];
      count = new int[ports * ports];
      rate = new double[ports * ports];
      rateOfPair = new double[ports * ports];
    }
    int pairs = 0;
    for (int u = 0; u < ports; u++) {
      for (int d = 0; d < ports; d++) {
        int n = state.activeFlows(u, d);
        if (n > 0) {
          src[pairs] = u;
          dst[pairs] = d;
          count[pairs++] = n;
        }
      }
    }
    allocator().fillPairs(src, dst, count, pairs, budget, rate);
    for (int k = 0; k < pairs; k++) {
      rateOfPair[src[k] * ports + dst[k]] = rate[k];
    }
    for (int i = 0, n = state.flows().size(); i < n; i++) {
      schedule.addRate(i, rateOfPair[state.srcAt(i) * ports + state.dstAt(i)]);
    }
  }

  /**
   * Fair sharing of a fabric among flows given only by (sender, receiver) pair, for an event loop
   * that adds and removes flows and asks for the shares after each change: every flow of a pair
   * gets {@link PairShares#rate}, the rate {@link #schedule} gives each of those flows (the same
   * water-filling, and nothing is left for the backfill). A simulator of pairs uses this instead of
   * building flows.
   */
  public PairShares pairShares(Fabric fabric) {
    return new PairShares(fabric);
  }
}
