package org.coflow.sim.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Schedule;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The plainest engine ({@code bin/coflow sim --engine reference}), written apart from the others to
 * check them: one decision per event, every flow with a rate moved by rate x dt, and the events are
 * the next arrival, the policy's next decision and the next flow completion (flows finishing within
 * a nanosecond of it finish with it). No completion window, no promise to the policy that flows
 * move as decided, no grouping, no shortcut: slow, and the yardstick of every faster engine.
 */
final class ReferenceSimulator extends EventLoop {
  private final boolean courier;
  private Schedule schedule;
  private final List<Flow> moving = new ArrayList<>();

  ReferenceSimulator(List<TraceCoflow> coflows, int ports, double bandwidth, boolean courier) {
    super(coflows, ports, bandwidth, 0, Model.DEFAULT);
    this.courier = courier;
  }

  @Override
  boolean courier() {
    return courier;
  }

  @Override
  double decide(double now, double untilArrival) {
    schedule = policy.schedule(state, now);
    events++;
    if (checker != null) {
      checker.check(state, schedule, now, policy.name());
    }
    double dt = untilArrival;
    double decision = policy.nextDecisionTime(state, schedule, now);
    if (decision < now + dt) {
      dt = Math.max(decision - now, 1e-9);
    }
    // The flows with a rate, in index order: bytes are added to a coflow's counters in the other
    // engines' order, so that its floating-point sums (which Varys' bottlenecks and Courier's rate
    // ties read) are the same to the last bit.
    moving.clear();
    for (int k = 0; k < schedule.servedSize(); k++) {
      moving.add(state.flows().get(schedule.servedInOrder()[k]));
    }
    for (Flow f : moving) {
      double rate = schedule.rate(f.index());
      if (rate > 0) {
        dt = Math.min(dt, f.remaining() / rate);
      }
    }
    if (dt == Double.POSITIVE_INFINITY) {
      throw Simulator.stalled(policy.name(), now, state.flows().size());
    }
    return dt;
  }

  @Override
  void advance(double now, double dt, double end, Finished finished) {
    List<Flow> done = new ArrayList<>();
    for (Flow f : moving) {
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
    done.sort(Comparator.comparingLong(Flow::id)); // the other engines' canonical order
    for (Flow f : done) {
      if (state.finishFlow(f, end)) {
        finished.coflow((int) f.coflow().seq(), f.coflow().bytesSent());
      }
    }
  }
}
