package org.coflow.sim.engine;

import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.core.policy.SharesByLevelPair;
import org.coflow.core.policy.SharesByPair;
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
 * <p>One event loop ({@link EventLoop}) replays every policy; what differs is the engine that moves
 * the flows, chosen from what the policy declares (not wrapped by Courier): per-flow fair sharing
 * ({@link SharesByPair}) runs on (sender, receiver) pairs instead of flows ({@link PairSimulator}):
 * every flow of a pair gets the same rate, so an event costs the active pairs, not the active
 * flows. Creek ({@link SharesByLevelPair}, deciding at every event, on a fabric its pair counts
 * fit) runs on (level, sender, receiver) groups ({@link LevelPairSimulator}) for the same reason.
 * Aalo, Baraat, Graviton and SCF ({@link SchedulingPolicy#readsCoflowTotalsOnly}, deciding at every
 * event) read no flow's progress, only their coflows' totals: each flow moves only when its rate
 * changes ({@link LazyFlowSimulator}), Baraat's first class taken by pair. Every other policy, and
 * every one behind Courier, moves flow by flow ({@link FlowSimulator}); {@link Engine#REFERENCE} is
 * the plain engine they are all checked against.
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

  /**
   * Which engine moves the flows ({@link EventLoop}): the fastest the policy allows, flow by flow
   * whatever the policy, or the plain reference every other engine is checked against.
   */
  public enum Engine {
    /** The fastest the policy declares it can be replayed with; flow by flow otherwise. */
    AUTO("auto"),
    /** Flow by flow ({@link FlowSimulator}) for every policy. */
    FLOWS("flows"),
    /** The plain reference ({@link ReferenceSimulator}): no completion window, no shortcut. */
    REFERENCE("reference");

    private final String label;

    Engine(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }

    /** The engine called {@code label}, or an error listing those there are. */
    public static Engine parse(String label) {
      for (Engine e : values()) {
        if (e.label.equals(label)) {
          return e;
        }
      }
      throw new IllegalArgumentException(
          "unknown engine '" + label + "': use auto, flows or reference");
    }
  }

  public SimResult run(
      SchedulingPolicy policy,
      boolean courier,
      InvariantChecker checker,
      ProgressListener progress) {
    return run(policy, courier, checker, progress, Engine.AUTO);
  }

  public SimResult run(
      SchedulingPolicy policy,
      boolean courier,
      InvariantChecker checker,
      ProgressListener progress,
      Engine engine) {
    long wallStart = System.nanoTime();
    Coflows meta = Coflows.of(trace.coflows(), model, bandwidth);
    return engineFor(policy, courier, engine).run(policy, meta, checker, progress, wallStart);
  }

  /**
   * The engine for {@code policy}: what the policy declares it can be replayed with ({@link
   * SharesByPair}, {@link SharesByLevelPair}, {@link SchedulingPolicy#readsCoflowTotalsOnly}),
   * unless Courier's merging or the reference simulator's decision gating stands between it and the
   * flows; flow by flow otherwise.
   */
  private EventLoop engineFor(SchedulingPolicy policy, boolean courier, Engine engine) {
    List<TraceCoflow> coflows = trace.coflows();
    int ports = trace.ports();
    if (engine == Engine.REFERENCE) {
      if (!model.isDefault()) {
        throw new IllegalArgumentException(
            "the reference engine replays our default model only, not " + model.label());
      }
      return new ReferenceSimulator(coflows, ports, bandwidth, courier);
    }
    boolean direct = engine == Engine.AUTO && !courier;
    if (direct && policy instanceof SharesByPair) {
      // Fair sharing is not coordinated: never gated, whatever the model.
      return new PairSimulator(coflows, ports, bandwidth, coalesce, model);
    }
    direct &= !model.has(Model.Choice.EVENTS);
    if (direct && policy instanceof SharesByLevelPair levels && ports <= levels.maxCountedPorts()) {
      return new LevelPairSimulator(coflows, ports, bandwidth, coalesce, model);
    }
    if (direct && policy.readsCoflowTotalsOnly()) {
      return new LazyFlowSimulator(coflows, ports, bandwidth, coalesce, model);
    }
    return new FlowSimulator(coflows, ports, bandwidth, coalesce, model, courier);
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
