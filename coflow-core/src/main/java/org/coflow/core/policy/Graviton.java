package org.coflow.core.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.PolicyType;

/**
 * Graviton (seed 001, the workshop precursor of Saath): Aalo's queues with a per-queue ordering
 * that uses coflow width, plus starvation freedom (Graviton-SF) and all-or-none admission.
 *
 * <p>Decisions where the seed is silent (see {@code reference/seeds/001-graviton.md} §7):
 *
 * <ul>
 *   <li>n = 7 queues, thresholds 10 MiB x10^i up to 10 TiB (the seed's "10 MB (10 TB)"); bytes are
 *       cluster-wide totals synchronised every Δ, as in {@link Aalo}.
 *   <li>Per queue (Table 1): thin-coflow-first (ascending width) in queues 0..n-4, wide-first in
 *       n-3..n-2, FIFO in n-1; ties by arrival. Width = number of sender ports that still have
 *       unfinished flows of the coflow, recomputed at every decision.
 *   <li>Across queues: strict priority, the same as our default {@link Aalo}, so the two differ
 *       only in what the seed changes.
 *   <li>All-or-none: in the priority pass a coflow is given capacity only if every port its
 *       unfinished flows use still has capacity; otherwise it is skipped whole (its flows can still
 *       pick up leftovers in the shared backfill, which keeps the schedule work-conserving).
 *   <li>Starvation freedom: "waiting time" is time without any service (the seed says "based on
 *       arrival time", but age alone would put every long coflow of the trace at the top). A coflow
 *       that has received no bandwidth for {@code starvation} seconds is served before all queues
 *       for one coordination interval Δ, oldest first, then returns to its queue.
 *   <li>Inside a coflow, flows share its capacity max-min fairly.
 * </ul>
 */
public final class Graviton extends AbstractPolicy {
  private final QueueTracker queues;
  private final double starvation;
  private final double boostLength;
  private final Map<Coflow, Double> lastServed = new IdentityHashMap<>();
  private final Map<Coflow, Double> boostedUntil = new IdentityHashMap<>();
  private final List<Coflow> servedByLastSchedule = new ArrayList<>();

  public Graviton(
      int queues,
      double firstThreshold,
      double multiplier,
      double starvationSeconds,
      double deltaSeconds) {
    if (queues < 4) {
      throw new IllegalArgumentException(
          "Graviton needs at least 4 queues (TCF, WCF, FIFO), got " + queues);
    }
    this.queues = new QueueTracker(queues, firstThreshold, multiplier, deltaSeconds);
    this.starvation = starvationSeconds;
    this.boostLength = deltaSeconds > 0 ? deltaSeconds : 0.1;
  }

  @Override
  public String name() {
    return "graviton";
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
    if (unobserved != null) {
      throw new IllegalStateException(
          "graviton: decided again before its next decision time was asked for, which"
              + " movesAsDecided promised to do after every decision");
    }
    queues.refresh(state, now);
    for (Coflow c : servedByLastSchedule) {
      lastServed.put(c, now); // its rate held from the last decision until now
    }
    lastServed.keySet().removeIf(c -> c.unfinishedFlows() == 0);
    boostedUntil.keySet().removeIf(c -> c.unfinishedFlows() == 0 || boostedUntil.get(c) <= now);
    int n = queues.queues();
    List<Coflow> starving = new ArrayList<>();
    List<List<Coflow>> byQueue = new ArrayList<>();
    for (int q = 0; q < n; q++) {
      byQueue.add(new ArrayList<>());
    }
    Map<Coflow, Integer> width = new IdentityHashMap<>();
    for (Coflow c : state.coflows()) {
      lastServed.putIfAbsent(c, c.arrival());
      if (!boostedUntil.containsKey(c) && starvation > 0 && now - lastServed.get(c) >= starvation) {
        boostedUntil.put(c, now + boostLength);
      }
      if (boostedUntil.containsKey(c)) {
        starving.add(c);
      } else {
        byQueue.get(queues.queue(c)).add(c);
      }
      width.put(c, senderWidth(c));
    }
    int rank = 0;
    for (Coflow c : starving) {
      admit(c, rank, budget, schedule);
    }
    rank++;
    for (int q = 0; q < n; q++) {
      List<Coflow> queue = byQueue.get(q);
      Comparator<Coflow> byArrival = Comparator.comparingLong(Coflow::seq);
      if (q <= n - 4) {
        queue.sort(Comparator.<Coflow>comparingInt(width::get).thenComparing(byArrival));
      } else if (q <= n - 2) {
        queue.sort(Comparator.<Coflow>comparingInt(c -> -width.get(c)).thenComparing(byArrival));
      }
      for (Coflow c : queue) {
        admit(c, rank++, budget, schedule);
      }
    }
  }

  private void admit(Coflow c, int rank, PortBudget budget, Schedule schedule) {
    appendCoflow(c, rank, schedule);
    if (Allocator.allPortsFree(c, budget)) {
      allocator().maxMinFair(c, budget, schedule);
    }
  }

  private static int senderWidth(Coflow c) {
    int width = 0;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0) {
        width++;
      }
    }
    return width;
  }

  /**
   * Under {@link #movesAsDecided}, the decision whose service {@link #observe} has yet to note, and
   * its time: the caller asks {@link #nextDecisionTime} next, which notes it from the coflows'
   * rates it reads anyway (a caller that sums them while walking the flows then spares a pass).
   */
  private boolean deferObserve;

  private Schedule unobserved;
  private double unobservedAt;

  @Override
  public void movesAsDecided() {
    deferObserve = true;
  }

  @Override
  protected void observe(ClusterState state, Schedule schedule, double now) {
    if (deferObserve) {
      unobserved = schedule;
      unobservedAt = now;
      return;
    }
    noteServed(state, schedule, now);
  }

  /** Which coflows {@code schedule} serves: they were served at {@code now}. */
  private void noteServed(ClusterState state, Schedule schedule, double now) {
    double[] rates = schedule.coflowRates(state);
    servedByLastSchedule.clear();
    for (Coflow c : state.coflows()) {
      if (rates[c.index()] > 0) {
        servedByLastSchedule.add(c);
        lastServed.put(c, now);
      }
    }
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    if (unobserved != null) {
      if (unobserved != schedule) {
        throw new IllegalStateException(
            "graviton: asked for the next decision time of another schedule than its last one,"
                + " which movesAsDecided promised not to do");
      }
      unobserved = null;
      noteServed(state, schedule, unobservedAt);
    }
    double[] rates = schedule.coflowRates(state);
    double next = Double.POSITIVE_INFINITY;
    for (Coflow c : state.coflows()) {
      double rate = rates[c.index()];
      next = Math.min(next, queues.nextDemotion(c, rate, now));
      Double until = boostedUntil.get(c);
      if (until != null) {
        next = Math.min(next, until);
      } else if (rate <= 0 && starvation > 0) {
        next = Math.min(next, Math.max(now, lastServed.getOrDefault(c, now) + starvation));
      }
    }
    return next;
  }
}
