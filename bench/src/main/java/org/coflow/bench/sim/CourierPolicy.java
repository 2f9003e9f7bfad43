package org.coflow.bench.sim;

import java.util.ArrayList;
import java.util.List;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Flow;
import org.coflow.api.model.PolicyType;
import org.coflow.courier.merge.Connection;
import org.coflow.courier.merge.FlowDemand;
import org.coflow.courier.merge.Merge;
import org.coflow.courier.merge.SelectAndSplit;
import org.coflow.courier.merge.UnifiedFlow;
import org.coflow.master.policy.Allocator;
import org.coflow.master.policy.Backfill;
import org.coflow.master.policy.PortBudget;
import org.coflow.master.policy.Schedule;
import org.coflow.master.policy.SchedulingPolicy;

/**
 * Any policy with Courier's merging in front of the fabric (seed 003, Alg. 1-3), as the agents
 * apply it: each receiving host's agent (the fetching side opens connections) merges the flows it
 * fetches into one unified flow per source host, and holds at most {@code maxNum} connections, the
 * most important unified flows first.
 *
 * <p>In a fluid big-switch model, merging itself changes nothing for RATE policies (a unified flow
 * carries the sum of its flows' rates and demultiplexes in proportion) and splitting changes
 * nothing at all (there is one path); what changes CCTs is that only the most important class of a
 * pair moves (ORDER policies) and that flows beyond {@code maxNum} peers wait. The model does not
 * include what Courier gains in a real network (fewer competing TCP connections, less queueing and
 * loss): those are measured on the emulated testbed, not here.
 *
 * <p>Rates: flows on a connection keep the inner policy's rate (RATE) or are allocated greedily in
 * the inner order (ORDER); leftovers are backfilled among flows that have a connection only.
 */
public final class CourierPolicy implements SchedulingPolicy {
  private final SchedulingPolicy inner;
  private final int maxNum;
  private final double minSize;
  private Allocator allocator;
  private Schedule spare;
  private final List<List<FlowDemand<Flow>>> byReceiver = new ArrayList<>();

  public CourierPolicy(SchedulingPolicy inner, int maxNum, double minSize) {
    this.inner = inner;
    this.maxNum = maxNum;
    this.minSize = minSize;
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public PolicyType type() {
    return inner.type();
  }

  @Override
  public Schedule schedule(ClusterState state, double now) {
    Schedule decided = inner.schedule(state, now);
    List<Flow> flows = state.flows();
    int ports = state.fabric().size();
    if (byReceiver.size() != ports) {
      byReceiver.clear();
      for (int p = 0; p < ports; p++) {
        byReceiver.add(new ArrayList<>());
      }
    }
    for (List<FlowDemand<Flow>> demands : byReceiver) {
      demands.clear();
    }
    int[] order = new int[decided.orderSize()];
    int[] n = {0};
    decided.forEachInOrder(i -> order[n[0]++] = i);
    for (int i : order) {
      Flow f = flows.get(i);
      double size = f.sizeKnown() ? f.remaining() : 0;
      byReceiver
          .get(f.dst())
          .add(new FlowDemand<>(f, f.src(), f.dst(), size, decided.rate(i), decided.priority(i)));
    }
    boolean[] connected = new boolean[flows.size()];
    for (List<FlowDemand<Flow>> demands : byReceiver) {
      if (demands.isEmpty()) {
        continue;
      }
      List<UnifiedFlow<Flow>> unified = Merge.merge(demands, inner.type());
      List<Connection<Flow>> active = SelectAndSplit.select(unified, inner.type(), maxNum, minSize);
      for (Connection<Flow> c : active) {
        for (FlowDemand<Flow> d : c.flow().carried()) {
          connected[d.key().index()] = true;
        }
      }
    }
    Schedule out = Schedule.recycle(state, spare);
    spare = null;
    PortBudget budget = new PortBudget(state.fabric());
    for (int i : order) {
      out.append(i, decided.priority(i));
      if (!connected[i]) {
        continue;
      }
      Flow f = flows.get(i);
      double r =
          inner.type() == PolicyType.RATE
              ? Math.min(decided.rate(i), budget.available(f.src(), f.dst()))
              : budget.available(f.src(), f.dst());
      if (r > 0) {
        out.setRate(i, r);
        budget.take(f.src(), f.dst(), r);
      }
    }
    if (allocator == null || allocator.ports() != ports) {
      allocator = new Allocator(ports);
    }
    Backfill.fill(state, budget, out, connected, allocator);
    inner.recycle(decided);
    return out;
  }

  @Override
  public void recycle(Schedule done) {
    spare = done;
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    return inner.nextDecisionTime(state, schedule, now);
  }
}
