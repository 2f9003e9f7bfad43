package org.coflow.master.policy;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.Flow;
import org.coflow.api.model.PolicyType;

/**
 * Creek (seed 000): receiver-side multi-level feedback queues, non-clairvoyant. Every receiver
 * puts each coflow it receives into one of K priority levels by the coflow's bytes received, with
 * the coflow-wide count taken from a shared per-coflow store, and flows are served in strict
 * priority of their receiver's level.
 *
 * <p>Decisions ({@code reference/seeds/000-creek.md} §6):
 *
 * <ul>
 *   <li>D1/D8: the "third-party store" is the master's per-coflow byte counter; receivers see a
 *       snapshot refreshed every Δ. A receiver uses max(snapshot, its own fresh count of bytes it
 *       received for the coflow), so its level can only be ahead of the store, and receivers of one
 *       coflow may disagree for up to Δ (the out-of-sync view the decentralised design has).
 *   <li>D2: K = 8 levels, thresholds 10 MiB x10^i (Aalo's spacing; the paper gives none).
 *   <li>D3: the "coflow condition" rule is off (level from bytes only).
 *   <li>D5: strict priority across levels, per-flow max-min fair sharing within a level.
 *   <li>D6: starvation is tracked per sub-coflow (coflow, receiver): when none of its flows has
 *       had bandwidth for {@code starvation} seconds (default 200 ms, Linux's minimum RTO), it is
 *       raised one level for that long, and again if it still starves.
 *   <li>D11: known sizes are ignored.
 * </ul>
 */
public final class Creek extends AbstractPolicy {
  private final int levels;
  private final double[] upper;
  private final double delta;
  private final double starvation;
  private final Map<Coflow, Double> snapshot = new IdentityHashMap<>();
  private final Map<Coflow, SubCoflows> subs = new IdentityHashMap<>();
  private long period = Long.MIN_VALUE;

  /** Per receiver port of one coflow: bytes received, last service, boost expiry. */
  private static final class SubCoflows {
    final double[] received;
    final double[] lastServed;
    final double[] boostedUntil;
    final boolean[] servedLast;

    SubCoflows(int ports, double arrival) {
      received = new double[ports];
      lastServed = new double[ports];
      boostedUntil = new double[ports];
      servedLast = new boolean[ports];
      java.util.Arrays.fill(lastServed, arrival);
      java.util.Arrays.fill(boostedUntil, Double.NEGATIVE_INFINITY);
    }
  }

  public Creek(int levels, double firstThreshold, double multiplier, double starvationSeconds,
      double deltaSeconds) {
    if (levels < 1 || levels > 8) {
      throw new IllegalArgumentException("Creek uses 1 to 8 priority levels (switch queues), got " + levels);
    }
    this.levels = levels;
    this.upper = new double[levels];
    for (int i = 0; i < levels; i++) {
      upper[i] = i == levels - 1 ? Double.POSITIVE_INFINITY : firstThreshold * Math.pow(multiplier, i);
    }
    this.delta = deltaSeconds;
    this.starvation = starvationSeconds;
  }

  @Override
  public String name() {
    return "creek";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  private int levelFor(double bytes) {
    int q = 0;
    while (q < levels - 1 && bytes > upper[q]) {
      q++;
    }
    return q;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    int ports = state.fabric().size();
    long p = delta > 0 ? (long) Math.floor(now / delta) : Long.MAX_VALUE;
    boolean sync = delta <= 0 || p != period;
    period = p;
    snapshot.keySet().removeIf(c -> c.unfinishedFlows() == 0);
    subs.keySet().removeIf(c -> c.unfinishedFlows() == 0);
    List<List<Flow>> byLevel = new ArrayList<>(levels);
    for (int k = 0; k < levels; k++) {
      byLevel.add(new ArrayList<>());
    }
    for (Coflow c : state.coflows()) {
      if (sync || !snapshot.containsKey(c)) {
        snapshot.put(c, c.bytesSent());
      }
      SubCoflows s = subs.computeIfAbsent(c, x -> new SubCoflows(ports, x.arrival()));
      java.util.Arrays.fill(s.received, 0);
      for (Flow f : c.flows()) {
        s.received[f.dst()] += f.sent();
      }
      for (Flow f : c.activeFlows()) {
        int r = f.dst();
        if (s.servedLast[r]) {
          s.lastServed[r] = now;
        }
      }
      double store = snapshot.get(c);
      for (Flow f : c.activeFlows()) {
        int r = f.dst();
        if (starvation > 0 && s.boostedUntil[r] <= now && now - s.lastServed[r] >= starvation) {
          s.boostedUntil[r] = now + starvation;
        }
        int level = levelFor(Math.max(store, s.received[r]));
        if (s.boostedUntil[r] > now) {
          level = Math.max(0, level - 1);
        }
        byLevel.get(level).add(f);
      }
    }
    for (int k = 0; k < levels; k++) {
      for (Flow f : byLevel.get(k)) {
        schedule.append(f.index(), k);
      }
      allocator().maxMinFair(byLevel.get(k), budget, schedule);
    }
  }

  @Override
  protected void observe(ClusterState state, Schedule schedule, double now) {
    for (Coflow c : state.coflows()) {
      SubCoflows s = subs.get(c);
      java.util.Arrays.fill(s.servedLast, false);
      for (Flow f : c.activeFlows()) {
        if (schedule.rate(f.index()) > 0) {
          s.servedLast[f.dst()] = true;
          s.lastServed[f.dst()] = now;
        }
      }
    }
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    int ports = state.fabric().size();
    double next = Double.POSITIVE_INFINITY;
    double[] rateTo = new double[ports];
    for (Coflow c : state.coflows()) {
      SubCoflows s = subs.get(c);
      double total = 0;
      java.util.Arrays.fill(rateTo, 0);
      for (Flow f : c.activeFlows()) {
        double r = schedule.rate(f.index());
        rateTo[f.dst()] += r;
        total += r;
      }
      double store = snapshot.get(c);
      int storeLevel = levelFor(store);
      if (total > 0 && storeLevel < levels - 1) {
        double cross = now + (upper[storeLevel] - c.bytesSent()) / total;
        next = Math.min(next, delta > 0 ? Math.max(Math.ceil(cross / delta) * delta, (Math.floor(now / delta) + 1) * delta) : cross);
      }
      for (Flow f : c.activeFlows()) {
        int r = f.dst();
        int local = levelFor(s.received[r]);
        if (rateTo[r] > 0 && local < levels - 1 && s.received[r] >= store) {
          next = Math.min(next, now + (upper[local] - s.received[r]) / rateTo[r] * (1 + 1e-12) + 1e-9);
        }
        if (s.boostedUntil[r] > now) {
          next = Math.min(next, s.boostedUntil[r]);
        } else if (starvation > 0 && rateTo[r] <= 0) {
          next = Math.min(next, Math.max(now, s.lastServed[r] + starvation));
        }
      }
    }
    return next;
  }
}
