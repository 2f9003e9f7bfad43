package org.coflow.sim.engine;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The plainest per-flow fluid simulation, written apart from {@link Simulator} to check it: exact
 * arrivals, one decision per event, every flow with a rate moved by rate x dt, and the events are
 * the next arrival, the policy's next decision and the next flow completion (flows finishing within
 * a nanosecond of it finish with it). No completion window, no shortcuts.
 */
final class ReferenceSimulator {
  private ReferenceSimulator() {}

  /** CCT per coflow of {@code trace}, in trace order. */
  static double[] run(
      Trace trace, double bandwidth, SchedulingPolicy policy, InvariantChecker checker) {
    List<TraceCoflow> coflows = trace.coflows();
    ClusterState state = new ClusterState(Fabric.uniform(trace.ports(), bandwidth));
    double[] cct = new double[coflows.size()];
    double now = 0;
    int next = 0;
    while (next < coflows.size() || !state.flows().isEmpty()) {
      if (state.flows().isEmpty()) {
        now = Math.max(now, coflows.get(next).arrivalMs() / 1000.0);
      }
      while (next < coflows.size() && coflows.get(next).arrivalMs() / 1000.0 <= now) {
        TraceCoflow tc = coflows.get(next);
        Coflow c = new Coflow(String.valueOf(tc.id()), next, tc.arrivalMs() / 1000.0, 1.0);
        state.addCoflow(c);
        for (int r = 0; r < tc.reducers().length; r++) {
          for (int m : tc.mappers()) {
            state.addFlow(c, m, tc.reducers()[r], tc.flowBytes(r), now);
          }
        }
        next++;
      }
      Schedule schedule = policy.schedule(state, now);
      if (checker != null) {
        checker.check(state, schedule, now, policy.name());
      }
      double dt =
          next < coflows.size()
              ? coflows.get(next).arrivalMs() / 1000.0 - now
              : Double.POSITIVE_INFINITY;
      double decision = policy.nextDecisionTime(state, schedule, now);
      if (decision < now + dt) {
        dt = Math.max(decision - now, 1e-9);
      }
      // The flows with a rate, in index order: bytes are added to a coflow's counters in the
      // simulator's order, so that its floating-point sums (which Varys' bottlenecks and
      // Courier's rate ties read) are the same to the last bit.
      List<Flow> flows = new ArrayList<>();
      for (int k = 0; k < schedule.servedSize(); k++) {
        flows.add(state.flows().get(schedule.servedInOrder()[k]));
      }
      for (Flow f : flows) {
        double rate = schedule.rate(f.index());
        if (rate > 0) {
          dt = Math.min(dt, f.remaining() / rate);
        }
      }
      if (dt == Double.POSITIVE_INFINITY) {
        throw new IllegalStateException(policy.name() + " stalled at t=" + now);
      }
      List<Flow> done = new ArrayList<>();
      for (Flow f : flows) {
        double rate = schedule.rate(f.index());
        if (rate > 0) {
          double left = f.remaining() - rate * dt;
          if (left <= rate * 1e-9 || left <= 1e-9 * f.size()) {
            state.addSent(f, f.remaining());
            done.add(f);
          } else {
            state.addSent(f, rate * dt);
          }
        }
      }
      now += dt;
      done.sort(java.util.Comparator.comparingLong(Flow::id)); // the simulator's canonical order
      for (Flow f : done) {
        if (state.finishFlow(f, now)) {
          int i = (int) f.coflow().seq();
          cct[i] = now - f.coflow().arrival();
        }
      }
    }
    return cct;
  }
}
