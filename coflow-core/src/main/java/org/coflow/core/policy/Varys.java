package org.coflow.core.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;
import org.coflow.core.model.PolicyType;

/**
 * Varys: Smallest-Effective-Bottleneck-First ordering with Minimum-Allocation-for-Desired-Duration
 * rates (clairvoyant: needs every flow's size).
 *
 * <p>Decisions:
 *
 * <ul>
 *   <li>SEBF orders coflows by Γ, the time the coflow's remaining bytes need on its busiest port at
 *       full port capacity (recomputed at every decision, so a coflow's position improves as it
 *       progresses); ties go to the earlier arrival.
 *   <li>MADD then walks coflows in that order and gives each flow remaining/Γ', where Γ' is the
 *       coflow's bottleneck on the capacity left by the coflows before it, so all its flows finish
 *       together; a coflow that finds one of its ports saturated gets nothing in this pass.
 *   <li>Work conservation is the shared backfill in SEBF order (Varys' greedy top-up).
 *   <li>Coflows with flows of unknown size (not clairvoyant) come after all others and share what
 *       is left max-min fairly.
 * </ul>
 */
public final class Varys extends AbstractPolicy {
  @Override
  public String name() {
    return "varys";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    List<Coflow> known = new ArrayList<>();
    List<Flow> unknown = new ArrayList<>();
    double[] full = budget.copyResiduals();
    List<double[]> keyed = new ArrayList<>();
    for (Coflow c : state.coflows()) {
      if (c.sizesKnown()) {
        known.add(c);
        keyed.add(new double[] {allocator().bottleneck(c, full), keyed.size()});
      } else {
        unknown.addAll(c.activeFlows());
      }
    }
    keyed.sort(Comparator.<double[]>comparingDouble(k -> k[0]).thenComparingDouble(k -> k[1]));
    int rank = 0;
    for (double[] k : keyed) {
      Coflow c = known.get((int) k[1]);
      appendCoflow(c, rank++, schedule);
      allocator().madd(c, budget, schedule);
    }
    for (Flow f : unknown) {
      schedule.append(f.index(), rank);
    }
    allocator().maxMinFair(unknown, budget, schedule);
  }
}
