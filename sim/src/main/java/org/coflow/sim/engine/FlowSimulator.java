package org.coflow.sim.engine;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Schedule;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The event loop's engine for any policy, flow by flow: every served flow moves at the rate the
 * policy gave it, and the next completion is found in one pass over them ({@link FluidStep}). The
 * only engine for a policy behind Courier's merging, and for the reference simulator's model.
 *
 * <p>Under that model's {@link Model.Choice#EVENTS} a coordinated policy decides only when coflows
 * are admitted or finish; in between, flows keep the rates of the last decision ({@link
 * HeldRates}).
 */
final class FlowSimulator extends EventLoop {
  private final boolean courier;
  private final FluidStep step = new FluidStep();
  private final List<Flow> done = new ArrayList<>();
  private HeldRates held;
  private Schedule schedule;
  private boolean fromPolicy;
  private boolean coflowEvent = true;
  private boolean sumsWanted;

  FlowSimulator(
      List<TraceCoflow> coflows,
      int ports,
      double bandwidth,
      double coalesce,
      Model model,
      boolean courier) {
    super(coflows, ports, bandwidth, coalesce, model);
    this.courier = courier;
  }

  @Override
  boolean courier() {
    return courier;
  }

  @Override
  void start() {
    // Fair sharing is not coordinated (coflowsim re-shares it every 8 ms quantum): never gated.
    boolean gated = model.has(Model.Choice.EVENTS) && !policy.name().equals("fair");
    held = gated ? new HeldRates() : null;
    if (!gated) {
      // Flows move at exactly the decided rates and every decision is followed by
      // nextDecisionTime: a policy may carry work over (a Courier wrapper does not pass it on).
      policy.movesAsDecided();
    }
  }

  @Override
  void admit(TraceCoflow tc, int seq, double now) {
    Simulator.admit(state, tc, seq, now);
    coflowEvent = true;
  }

  @Override
  double decide(double now, double untilArrival) {
    for (boolean forced = false; ; forced = true) {
      fromPolicy = held == null || coflowEvent;
      if (fromPolicy) {
        schedule = policy.schedule(state, now);
        if (held != null) {
          held.keep(state, schedule);
        }
      } else {
        schedule = held.replay(state);
      }
      coflowEvent = false;
      events++;
      if (checker != null) {
        checker.check(state, schedule, now, policy.name());
      }
      double dt = untilArrival;
      // The pass over the served flows for the next completion runs before the policy picks its
      // next decision time, and sums the rates per coflow on the way for a policy that reads them
      // there (learned at its first such read), so that it does not walk the flows again.
      step.scan(state, schedule, coalesce, sumsWanted && !schedule.coflowRatesKnown());
      double decision = Double.POSITIVE_INFINITY;
      if (held == null) {
        boolean known = schedule.coflowRatesKnown();
        long changes = schedule.rateChanges();
        decision = policy.nextDecisionTime(state, schedule, now);
        sumsWanted |= !known && schedule.coflowRatesKnown();
        if (schedule.rateChanges() != changes) {
          step.scan(state, schedule, coalesce, false); // it changed a rate: scan the new ones
        }
      }
      if (decision < now + dt) {
        dt = Math.max(decision - now, FluidStep.SECONDS);
      }
      dt = step.until(dt, coalesce);
      if (dt == Double.POSITIVE_INFINITY && held != null && !forced) {
        // Every flow with a held rate is done and nothing else is pending: decide now.
        coflowEvent = true;
        continue;
      }
      if (dt == Double.POSITIVE_INFINITY) {
        throw Simulator.stalled(policy.name(), now, state.flows().size());
      }
      return dt;
    }
  }

  @Override
  void advance(double now, double dt, double end, Finished finished) {
    FluidStep.advance(state, schedule, dt, done);
    for (Flow f : done) {
      if (Math.abs(f.sent() - f.size()) > 1e-6 * f.size()) {
        throw new IllegalStateException(
            policy.name()
                + ": "
                + f
                + " finished having sent "
                + f.sent()
                + " of "
                + f.size()
                + " bytes");
      }
      if (state.finishFlow(f, end)) {
        coflowEvent = true;
        finished.coflow((int) f.coflow().seq(), f.coflow().bytesSent());
      }
    }
    if (fromPolicy) {
      // Nothing reads this decision again: the next one may reuse its arrays.
      policy.recycle(schedule);
    }
  }

  /** The rates of the last decision, replayed for the flows still active. */
  private static final class HeldRates {
    private Flow[] flows = new Flow[0];
    private double[] rates = new double[0];
    private int size;

    void keep(ClusterState state, Schedule schedule) {
      int n = schedule.servedSize();
      if (flows.length < n) {
        flows = new Flow[n];
        rates = new double[n];
      }
      int[] served = schedule.served();
      for (int k = 0; k < n; k++) {
        flows[k] = state.flows().get(served[k]);
        rates[k] = schedule.rate(served[k]);
      }
      size = n;
    }

    Schedule replay(ClusterState state) {
      Schedule s = Schedule.empty(state);
      for (int k = 0; k < size; k++) {
        if (!flows[k].finished()) {
          s.addRate(flows[k].index(), rates[k]);
        }
      }
      return s;
    }
  }
}
