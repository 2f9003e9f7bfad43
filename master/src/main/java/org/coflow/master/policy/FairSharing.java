package org.coflow.master.policy;

import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
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

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    // One class, listed coflow by coflow (one segment each, not one per flow): the water-filling
    // is the same as over every flow at once, and the order is the coflows' arrival order.
    allocator().clearGroup();
    for (Coflow c : state.coflows()) {
      appendCoflow(c, 0, schedule);
      allocator().offer(c, budget);
    }
    allocator().fillGroup(budget, schedule);
  }
}
