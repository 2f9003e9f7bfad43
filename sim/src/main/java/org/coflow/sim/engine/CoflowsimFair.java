package org.coflow.sim.engine;

import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.model.PolicyType;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;

/**
 * Per-flow fair sharing as the reference simulator coflowsim computes it ({@code FlowSimulator}'s
 * FAIR): every active flow gets min(uplink / active flows at its sender, downlink / active flows at
 * its receiver), with no water-filling, so what one end of a flow cannot use stays idle. A
 * modelling mode of the simulator ({@link Model.Choice#FAIR}), not a policy the master offers; it
 * is not work-conserving, so the invariant checker does not apply to it.
 */
public final class CoflowsimFair implements SchedulingPolicy {
  @Override
  public String name() {
    return "fair";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  @Override
  public Schedule schedule(ClusterState state, double now) {
    Fabric fabric = state.fabric();
    int ports = fabric.size();
    int[] atSrc = new int[ports];
    int[] atDst = new int[ports];
    List<Flow> flows = state.flows();
    for (Flow f : flows) {
      atSrc[f.src()]++;
      atDst[f.dst()]++;
    }
    Schedule s = Schedule.empty(state);
    for (int i = 0, n = flows.size(); i < n; i++) {
      Flow f = flows.get(i);
      s.append(i, 0);
      s.setRate(
          i,
          Math.min(
              fabric.uplink(f.src()) / atSrc[f.src()], fabric.downlink(f.dst()) / atDst[f.dst()]));
    }
    return s;
  }
}
