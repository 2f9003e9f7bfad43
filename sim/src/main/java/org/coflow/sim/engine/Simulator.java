package org.coflow.sim.engine;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Creek;
import org.coflow.core.policy.FairSharing;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceCoflow;

/**
 * Event-driven, flow-level simulation of a trace on a big-switch fabric.
 *
 * <p>Model: every port has an uplink and a downlink of the same capacity and nothing else
 * constrains a flow (a non-blocking switch). Flows are fluid: between two events each moves at the
 * rate the policy gave it. Events are coflow arrivals (at their exact trace times, no batching),
 * flow completions, and the policy's own decision times (queue threshold crossings seen at the next
 * Δ tick, starvation timers). At every event the policy decides again; nothing happens in between.
 * A coflow of M mappers and R reducers is M x R flows; reducer r's megabytes are split evenly over
 * the mappers. Left out: propagation delay, transport dynamics (slow start, loss), compute, and the
 * cost of the scheduler itself.
 *
 * <p>Flows that would finish within a nanosecond of each other finish in the same event, so the
 * many equal flows of a trace coflow cost one event, not thousands.
 *
 * <p>Per-flow fair sharing ({@link FairSharing}, not wrapped by Courier) runs the same loop on
 * (sender, receiver) pairs instead of flows ({@link PairSimulator}): every flow of a pair gets the
 * same rate, so an event costs the active pairs, not the active flows. Creek (not wrapped by
 * Courier, deciding at every event, on a fabric its pair counts fit) runs it on (level, sender,
 * receiver) groups ({@link LevelPairSimulator}) for the same reason: every flow of one level on one
 * pair gets the same rate. Aalo, Baraat and Graviton (not wrapped by Courier, deciding at every
 * event) read no flow's progress, only their coflows' totals: they run the same loop with each flow
 * moved only when its rate changes ({@link LazyFlowSimulator}), Baraat's first class taken by pair.
 */
public final class Simulator {

  /** Default relative completion window: see {@link #Simulator(Trace, double, double)}. */
  public static final double DEFAULT_COALESCE = 1e-3;

  private final Trace trace;
  private final double bandwidth;
  private final double coalesce;
  private final Model model;

  /** A simulator with our default {@link Model}. */
  public Simulator(Trace trace, double bandwidth, double coalesce) {
    this(trace, bandwidth, coalesce, Model.DEFAULT);
  }

  /**
   * @param bandwidth bytes/s of every uplink and downlink
   * @param coalesce relative completion window w: when the next flow completion is dt away, every
   *     flow that completes within dt * (1 + w) completes in the same event, at its end. Flows that
   *     finish earlier in the window idle for at most w * dt, so no port ever exceeds its capacity
   *     and no coflow finishes early; CCTs can only grow, by at most a fraction w of the gaps
   *     between events. 0 is exact (one event per distinct completion time).
   * @param model our modelling choices or some of the reference simulator's ({@link Model})
   */
  public Simulator(Trace trace, double bandwidth, double coalesce, Model model) {
    if (!(coalesce >= 0) || coalesce == Double.POSITIVE_INFINITY) {
      throw new IllegalArgumentException(
          "completion window must be 0 or more and finite, got " + coalesce);
    }
    this.trace = trace;
    this.bandwidth = bandwidth;
    this.coalesce = coalesce;
    this.model = model;
  }

  public SimResult run(
      SchedulingPolicy policy,
      boolean courier,
      InvariantChecker checker,
      ProgressListener progress) {
    long wallStart = System.nanoTime();
    List<TraceCoflow> coflows = trace.coflows();
    int n = coflows.size();
    Coflows meta = Coflows.of(coflows, model, bandwidth);
    if (policy instanceof FairSharing fair && !courier) {
      return new PairSimulator(coflows, trace.ports(), bandwidth, coalesce, model)
          .run(fair, meta, checker, progress, wallStart);
    }
    if (policy instanceof Creek creek
        && !courier
        && !model.has(Model.Choice.EVENTS)
        && trace.ports() <= creek.maxCountedPorts()) {
      return new LevelPairSimulator(coflows, trace.ports(), bandwidth, coalesce, model)
          .run(creek, meta, checker, progress, wallStart);
    }
    if (policy.readsCoflowTotalsOnly() && !courier && !model.has(Model.Choice.EVENTS)) {
      return new LazyFlowSimulator(coflows, trace.ports(), bandwidth, coalesce, model)
          .run(policy, meta, checker, progress, wallStart);
    }
    Fabric fabric = Fabric.uniform(trace.ports(), bandwidth);
    ClusterState state = new ClusterState(fabric);
    double[] arrival = meta.arrival();
    double[] cct = new double[n];
    double[] delivered = new double[n];
    double lastArrival = n == 0 ? 0 : arrival[n - 1];
    double now = 0;
    int next = 0;
    int finished = 0;
    long events = 0;
    List<Flow> done = new ArrayList<>();
    FluidStep step = new FluidStep();
    // Under the reference model's EVENTS choice a coordinated policy decides only when coflows
    // are admitted or finish; in between, flows keep the rates of the last decision.
    // Fair sharing is not coordinated (coflowsim re-shares it every 8 ms quantum): never gated.
    boolean gated = model.has(Model.Choice.EVENTS) && !policy.name().equals("fair");
    HeldRates held = gated ? new HeldRates() : null;
    if (!gated) {
      // Flows move at exactly the decided rates and every decision is followed by
      // nextDecisionTime: a policy may carry work over (a Courier wrapper does not pass it on).
      policy.movesAsDecided();
    }
    boolean coflowEvent = true;
    boolean forced = false;
    boolean sumsWanted = false;
    while (next < n || !state.flows().isEmpty()) {
      if (state.flows().isEmpty() && arrival[next] > now) {
        now = arrival[next];
      }
      while (next < n && arrival[next] <= now) {
        admit(state, coflows.get(next), next, arrival[next]);
        next++;
        coflowEvent = true;
      }
      Schedule schedule;
      boolean fromPolicy = held == null || coflowEvent;
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
      List<Flow> flows = state.flows();
      double dt = next < n ? arrival[next] - now : Double.POSITIVE_INFINITY;
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
        forced = true;
        coflowEvent = true;
        continue;
      }
      forced = false;
      if (dt == Double.POSITIVE_INFINITY) {
        throw stalled(policy.name(), now, flows.size());
      }
      FluidStep.advance(state, schedule, dt, done);
      now += dt;

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
        if (state.finishFlow(f, now)) {
          int i = (int) f.coflow().seq();
          cct[i] = model.recorded(arrival[i], now);
          coflowEvent = true;
          delivered[i] = f.coflow().bytesSent();
          finished++;
        }
      }
      if (fromPolicy) {
        // Nothing reads this decision again: the next one may reuse its arrays.
        policy.recycle(schedule);
      }
      progress.progress(now, lastArrival, finished, n);
    }
    double wall = (System.nanoTime() - wallStart) / 1e9;
    return meta.result(policy.name(), cct, delivered, events, wall, courier);
  }

  /** The error of a run where flows wait but nothing will ever happen. */
  static IllegalStateException stalled(String policy, double now, int activeFlows) {
    return new IllegalStateException(
        policy
            + " stalled at t="
            + now
            + "s: "
            + activeFlows
            + " flows are active but none has a rate and no event is pending");
  }

  /** What a run reports per coflow besides its completion time, from the trace. */
  record Coflows(
      int[] ids,
      double[] arrival,
      double[] lowerBound,
      double[] bytes,
      int[] flowCount,
      double[] longest) {

    static Coflows of(List<TraceCoflow> coflows, Model model, double bandwidth) {
      int n = coflows.size();
      Coflows m =
          new Coflows(
              new int[n], new double[n], new double[n], new double[n], new int[n], new double[n]);
      for (int i = 0; i < n; i++) {
        TraceCoflow tc = coflows.get(i);
        m.ids[i] = tc.id();
        m.arrival[i] = model.admission(tc.arrivalMs());
        m.lowerBound[i] = isolatedBound(tc, bandwidth);
        m.bytes[i] = tc.totalBytes();
        m.flowCount[i] = tc.flowCount();
        for (int r = 0; r < tc.reducers().length; r++) {
          m.longest[i] = Math.max(m.longest[i], tc.flowBytes(r));
        }
      }
      return m;
    }

    SimResult result(
        String policy,
        double[] cct,
        double[] delivered,
        long events,
        double wallSeconds,
        boolean courier) {
      return new SimResult(
          policy,
          courier,
          ids,
          arrival,
          cct,
          lowerBound,
          bytes,
          delivered,
          flowCount,
          longest,
          events,
          wallSeconds);
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

  /** Adds trace coflow {@code tc} and its M x R flows to the state, arriving at {@code now}. */
  static Coflow admit(ClusterState state, TraceCoflow tc, int seq, double now) {
    Coflow c = new Coflow(String.valueOf(tc.id()), seq, now, 1.0);
    state.addCoflow(c);
    for (int r = 0; r < tc.reducers().length; r++) {
      double size = tc.flowBytes(r);
      for (int m : tc.mappers()) {
        state.addFlow(c, m, tc.reducers()[r], size, now);
      }
    }
    return c;
  }

  /**
   * The coflow alone on the fabric: its busiest port's bytes over the port's capacity. No policy
   * can finish it sooner, and MADD alone achieves it.
   */
  public static double isolatedBound(TraceCoflow tc, double bandwidth) {
    double perMapper = tc.totalBytes() / tc.mappers().length;
    double maxReducer = 0;
    for (int r = 0; r < tc.reducers().length; r++) {
      maxReducer = Math.max(maxReducer, tc.reducerMb()[r] * Trace.MB);
    }
    return Math.max(perMapper, maxReducer) / bandwidth;
  }
}
