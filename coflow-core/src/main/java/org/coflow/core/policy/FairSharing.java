package org.coflow.core.policy;

import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.PolicyType;

/**
 * Per-flow max-min fair sharing: the baseline every other policy is normalised to.
 *
 * <p>True water-filling over sender and receiver ports (what an ideal per-flow transport such as
 * RCP converges to): unlike the reference simulator coflowsim's FAIR, which gives each flow {@code
 * min(C/n_src, C/n_dst)} and leaves capacity idle, capacity a flow cannot use because of its other
 * end goes to the other flows. It is therefore a stronger baseline, and the normalised gains of
 * coflow policies against it are smaller than against coflowsim's.
 */
public final class FairSharing extends AbstractPolicy implements SharesByPair {
  @Override
  public String name() {
    return "fair";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  // Per active pair: sized by the pairs in use, not the fabric.
  private int[] src = new int[0];
  private int[] dst = new int[0];
  private int[] count = new int[0];
  private int[] slot = new int[0];
  private double[] rate = new double[0];

  /** By slot of the state's active pairs: the rate of each of its flows. */
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
    int slots = state.pairSlots();
    if (src.length < state.activePairs()) {
      int len = Math.max(state.activePairs(), 2 * src.length);
      src = new int[len];
      dst = new int[len];
      count = new int[len];
      slot = new int[len];
      rate = new double[len];
    }
    if (rateOfPair.length < slots) {
      rateOfPair = new double[Math.max(slots, 2 * rateOfPair.length)];
    }
    // Listed in slot order, which follows how flows came and went: the order decides only which of
    // two resources saturating at exactly the same level goes first, which changes no rate.
    int n = 0;
    for (int k = 0; k < slots; k++) {
      int flows = state.activeFlowsAt(k);
      if (flows > 0) {
        src[n] = state.pairSrc(k);
        dst[n] = state.pairDst(k);
        count[n] = flows;
        slot[n++] = k;
      }
    }
    allocator().fillPairs(src, dst, count, n, budget, rate);
    for (int k = 0; k < n; k++) {
      rateOfPair[slot[k]] = rate[k];
    }
    for (int i = 0, m = state.flows().size(); i < m; i++) {
      schedule.addRate(i, rateOfPair[state.pairAt(i)]);
    }
  }

  /**
   * Fair sharing of a fabric among flows given only by (sender, receiver) pair, for an event loop
   * that adds and removes flows and asks for the shares after each change: every flow of a pair
   * gets {@link PairShares#rate}, the rate {@link #schedule} gives each of those flows (the same
   * water-filling, and nothing is left for the backfill). A simulator of pairs uses this instead of
   * building flows.
   */
  @Override
  public PairShares pairShares(Fabric fabric) {
    return new PairShares(fabric);
  }
}
