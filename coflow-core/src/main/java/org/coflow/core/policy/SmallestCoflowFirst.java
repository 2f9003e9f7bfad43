package org.coflow.core.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.PolicyType;

/**
 * Smallest-Coflow-First: one of the ordering heuristics the Varys paper (Chowdhury, Zhong and
 * Stoica, SIGCOMM 2014) compares SEBF with, written as docs/writing-a-policy.md's worked example.
 *
 * <p>Decisions:
 *
 * <ul>
 *   <li>Coflows whose every flow has a known size come first, smallest total bytes first (the size
 *       at arrival, not what is left: SCF's key is static, which is what separates it from SEBF);
 *       ties go to the earlier arrival.
 *   <li>Each coflow is a priority class of its own; its flows share what the coflows before it left
 *       max-min fairly.
 *   <li>Coflows with a flow of unknown size come after all others, in arrival order, each max-min
 *       on what is left.
 *   <li>Work conservation is the shared backfill in that order.
 * </ul>
 *
 * <p>It reads the coflows' sizes and the set of active flows, never a flow's progress, so the
 * simulator may replay it with its lazy engine ({@link #readsCoflowTotalsOnly}).
 */
public final class SmallestCoflowFirst extends AbstractPolicy {
  /** Registers {@code scf} (listed in META-INF/services/org.coflow.core.policy.PolicyProvider). */
  public static final class Provider implements PolicyProvider {
    @Override
    public List<String> names() {
      return List.of("scf");
    }

    @Override
    public SchedulingPolicy create(String name, Config config) {
      return new SmallestCoflowFirst();
    }
  }

  @Override
  public String name() {
    return "scf";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  @Override
  public boolean readsCoflowTotalsOnly() {
    return true;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    List<Coflow> known = new ArrayList<>();
    List<Coflow> unknown = new ArrayList<>();
    for (Coflow c : state.coflows()) {
      (c.sizesKnown() ? known : unknown).add(c);
    }
    // A stable sort: equal sizes keep the state's order, which is arrival order.
    known.sort(Comparator.comparingDouble(Coflow::totalBytes));
    known.addAll(unknown);
    int rank = 0;
    for (Coflow c : known) {
      appendCoflow(c, rank++, schedule);
      allocator().maxMinFair(c, budget, schedule);
    }
  }
}
