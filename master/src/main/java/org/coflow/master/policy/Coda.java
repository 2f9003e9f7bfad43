package org.coflow.master.policy;

import java.util.ArrayList;
import java.util.List;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.Flow;
import org.coflow.api.model.PolicyType;

/**
 * CODA's error-tolerant scheduler (seed 002, Algorithm 2): D-CLAS between coflows (as
 * {@link Aalo}, strict priority across queues, FIFO inside a queue), and inside each coflow a
 * multi-level feedback queue over its flows by bytes sent (smallest-first without knowing sizes),
 * flows of one flow-queue sharing max-min fairly.
 *
 * <p>Here the coflows are the true ones. Identification and late binding (Algorithm 2's
 * CoflowExtension, where a flow may belong to several extended coflows and binds to the first,
 * highest-priority one that schedules it) extend {@link #coflowsInPriorityOrder}: the allocation
 * below already skips flows that an earlier coflow scheduled.
 *
 * <p>Decisions: the paper gives no D-CLAS parameters, so they are Aalo's (10 queues, 10 MiB,
 * x10, Δ); the flow queues are {@code flowQueues} levels starting at {@code flowFirstThreshold}
 * (default 1 MiB) with x10 spacing, since the paper says only "exponentially increasing". A flow's
 * bytes are known to its own agent, so flow levels use live counts (no Δ).
 */
public class Coda extends AbstractPolicy {
  private final QueueTracker queues;
  private final Thresholds flowLevels;

  public Coda(int queues, double firstThreshold, double multiplier, double deltaSeconds,
      int flowQueues, double flowFirstThreshold, double flowMultiplier) {
    this.queues = new QueueTracker(queues, firstThreshold, multiplier, deltaSeconds);
    this.flowLevels = new Thresholds(flowQueues, flowFirstThreshold, flowMultiplier);
  }

  @Override
  public String name() {
    return "coda";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  private int flowLevel(Flow f) {
    return flowLevels.level(f.sent());
  }

  /**
   * A coflow as the scheduler treats it: an identified coflow plus, with late binding, the flows
   * within the extension diameter of it ({@code extra}, empty for true coflows).
   */
  protected record Candidate(Coflow coflow, List<Flow> extra) {}

  /**
   * Coflows in inter-coflow priority order: D-CLAS queues, FIFO inside each. The identification
   * issue overrides this to return late-bound extended coflows.
   */
  protected List<Candidate> coflowsInPriorityOrder(ClusterState state, double now) {
    queues.refresh(state, now);
    List<Candidate> ordered = new ArrayList<>();
    for (int q = 0; q < queues.queues(); q++) {
      for (Coflow c : state.coflows()) {
        if (queues.queue(c) == q) {
          ordered.add(new Candidate(c, List.of()));
        }
      }
    }
    return ordered;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    boolean[] bound = new boolean[state.flows().size()];
    List<Candidate> candidates = coflowsInPriorityOrder(state, now);
    boolean extended = candidates.stream().anyMatch(c -> !c.extra().isEmpty());
    List<List<Flow>> levels = new ArrayList<>(flowLevels.levels());
    for (int j = 0; j < flowLevels.levels(); j++) {
      levels.add(new ArrayList<>());
    }
    int rank = 0;
    for (Candidate cand : candidates) {
      if (!extended && !Allocator.mayTake(cand.coflow(), budget)) {
        // Nothing can move: its flows' order among themselves cannot change any rate.
        appendCoflow(cand.coflow(), rank, schedule);
        rank += flowLevels.levels();
        continue;
      }
      for (List<Flow> level : levels) {
        level.clear();
      }
      for (List<Flow> part : List.of(cand.coflow().activeFlows(), cand.extra())) {
        for (Flow f : part) {
          if (!bound[f.index()]) {
            bound[f.index()] = true;
            levels.get(flowLevel(f)).add(f);
          }
        }
      }
      for (List<Flow> level : levels) {
        for (Flow f : level) {
          schedule.append(f.index(), rank);
        }
        allocator().maxMinFair(level, budget, schedule);
        rank++;
      }
    }
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    double[] rates = schedule.coflowRates(state);
    double next = Double.POSITIVE_INFINITY;
    for (Coflow c : state.coflows()) {
      next = Math.min(next, queues.nextDemotion(c, rates[c.index()], now));
    }
    int[] served = schedule.served();
    for (int k = 0, n = schedule.servedSize(); k < n; k++) {
      Flow f = state.flows().get(served[k]);
      next = Math.min(next, flowLevels.crossing(f.sent(), schedule.rate(f.index()), now));
    }
    return next;
  }
}
