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
  private final int flowQueues;
  private final double[] flowUpper;

  public Coda(int queues, double firstThreshold, double multiplier, double deltaSeconds,
      int flowQueues, double flowFirstThreshold, double flowMultiplier) {
    this.queues = new QueueTracker(queues, firstThreshold, multiplier, deltaSeconds);
    this.flowQueues = flowQueues;
    this.flowUpper = new double[flowQueues];
    for (int i = 0; i < flowQueues; i++) {
      flowUpper[i] = i == flowQueues - 1
          ? Double.POSITIVE_INFINITY
          : flowFirstThreshold * Math.pow(flowMultiplier, i);
    }
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
    int q = 0;
    while (q < flowQueues - 1 && f.sent() > flowUpper[q]) {
      q++;
    }
    return q;
  }

  /**
   * Coflows (as flow lists) in inter-coflow priority order: D-CLAS queues, FIFO inside each. The
   * identification issue overrides this to return late-bound extended coflows.
   */
  protected List<List<Flow>> coflowsInPriorityOrder(ClusterState state, double now) {
    queues.refresh(state, now);
    List<List<Flow>> ordered = new ArrayList<>();
    for (int q = 0; q < queues.queues(); q++) {
      for (Coflow c : state.coflows()) {
        if (queues.queue(c) == q) {
          ordered.add(c.activeFlows());
        }
      }
    }
    return ordered;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    boolean[] bound = new boolean[state.flows().size()];
    List<List<Flow>> levels = new ArrayList<>(flowQueues);
    for (int j = 0; j < flowQueues; j++) {
      levels.add(new ArrayList<>());
    }
    int rank = 0;
    for (List<Flow> coflow : coflowsInPriorityOrder(state, now)) {
      for (List<Flow> level : levels) {
        level.clear();
      }
      for (Flow f : coflow) {
        if (!bound[f.index()]) {
          bound[f.index()] = true;
          levels.get(flowLevel(f)).add(f);
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
    double next = Double.POSITIVE_INFINITY;
    for (Coflow c : state.coflows()) {
      next = Math.min(next, queues.nextDemotion(c, coflowRate(c, schedule), now));
    }
    for (Flow f : state.flows()) {
      double r = schedule.rate(f.index());
      int level = flowLevel(f);
      if (r > 0 && level < flowQueues - 1) {
        next = Math.min(next, now + (flowUpper[level] - f.sent()) / r * (1 + 1e-12) + 1e-9);
      }
    }
    return next;
  }
}
