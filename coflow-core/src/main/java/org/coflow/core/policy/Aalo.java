package org.coflow.core.policy;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.PolicyType;

/**
 * Aalo's Discretised Coflow-Aware Least-Attained Service (D-CLAS), non-clairvoyant.
 *
 * <p>Decisions where the paper leaves room (the defaults match Aalo's reference code, the Varys
 * {@code aalo} branch, and coflowsim's DARK):
 *
 * <ul>
 *   <li>K = 10 queues; the first holds coflows that sent at most 10 MiB, each next threshold is 10x
 *       the previous, the last queue is unbounded. Bytes sent are cluster-wide and known to the
 *       master every Δ (see {@link QueueTracker}); coflows only move down.
 *   <li>Inside a queue, coflows are served FIFO by arrival (the paper's FIFO; coflowsim orders by
 *       the time a coflow entered the queue instead).
 *   <li>Inside a coflow, its flows share the capacity it is given max-min fairly (the transport's
 *       per-flow fairness under the coflow's rate limit).
 *   <li>Across queues, {@code strict} priority (the reference implementations) or {@code weighted}
 *       sharing (the paper's starvation-free variant): each port splits its capacity among the
 *       queues that have flows on it in proportion to weights K - q (queue 0 weighs K), and what a
 *       queue leaves unused is backfilled in priority order.
 * </ul>
 */
public final class Aalo extends AbstractPolicy {
  private final QueueTracker queues;
  private final boolean weighted;

  public Aalo(
      int queues, double firstThreshold, double multiplier, boolean weighted, double deltaSeconds) {
    this.queues = new QueueTracker(queues, firstThreshold, multiplier, deltaSeconds);
    this.weighted = weighted;
  }

  @Override
  public String name() {
    return "aalo";
  }

  @Override
  public boolean readsCoflowTotalsOnly() {
    return true;
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    queues.refresh(state, now);
    List<List<Coflow>> byQueue = byQueue(state);
    if (weighted) {
      allocateWeighted(byQueue, budget, schedule);
    } else {
      for (int q = 0; q < byQueue.size(); q++) {
        for (Coflow c : byQueue.get(q)) {
          appendCoflow(c, q, schedule);
          allocator().maxMinFair(c, budget, schedule);
        }
      }
    }
  }

  /** Active coflows per queue, each queue in arrival order (state lists coflows by arrival). */
  private List<List<Coflow>> byQueue(ClusterState state) {
    List<List<Coflow>> byQueue = new ArrayList<>(queues.queues());
    for (int q = 0; q < queues.queues(); q++) {
      byQueue.add(new ArrayList<>());
    }
    for (Coflow c : state.coflows()) {
      byQueue.get(queues.queue(c)).add(c);
    }
    return byQueue;
  }

  private void allocateWeighted(List<List<Coflow>> byQueue, PortBudget budget, Schedule schedule) {
    int k = byQueue.size();
    double[] full = budget.copyResiduals();
    double[] weightAt = new double[full.length];
    int ports = budget.ports();
    int[] marked = new int[full.length];
    for (int q = 0; q < k; q++) {
      for (Coflow c : byQueue.get(q)) {
        markPorts(c, ports, weightAt, k - q, q, marked);
      }
    }
    double[] leftover = new double[full.length];
    for (int q = 0; q < k; q++) {
      if (byQueue.get(q).isEmpty()) {
        continue;
      }
      double w = k - q;
      // Queue q's share only where it has flows: a share at a port it does not use would come
      // back as leftover on top of the other queues' shares, more than the port has.
      int[] mine = new int[full.length];
      double[] own = new double[full.length];
      for (Coflow c : byQueue.get(q)) {
        markPorts(c, ports, own, w, q, mine);
      }
      double[] share = new double[full.length];
      for (int r = 0; r < full.length; r++) {
        share[r] = own[r] > 0 ? full[r] * w / weightAt[r] : 0;
      }
      budget.setResiduals(share);
      for (Coflow c : byQueue.get(q)) {
        appendCoflow(c, q, schedule);
        allocator().maxMinFair(c, budget, schedule);
      }
      // Only the share of queues present at a port was handed out; what they leave returns.
      double[] rest = budget.copyResiduals();
      for (int r = 0; r < full.length; r++) {
        leftover[r] += rest[r];
      }
    }
    for (int r = 0; r < full.length; r++) {
      if (weightAt[r] == 0) {
        leftover[r] = full[r];
      }
    }
    budget.setResiduals(leftover);
  }

  /** Adds queue q's weight once to every resource a coflow of queue q uses. */
  private static void markPorts(
      Coflow c, int ports, double[] weightAt, double w, int q, int[] marked) {
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0 && marked[p] != q + 1) {
        marked[p] = q + 1;
        weightAt[p] += w;
      }
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0 && marked[ports + p] != q + 1) {
        marked[ports + p] = q + 1;
        weightAt[ports + p] += w;
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
    return next;
  }
}
