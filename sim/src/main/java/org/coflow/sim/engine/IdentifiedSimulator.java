package org.coflow.sim.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.identify.Accuracy;
import org.coflow.core.identify.CodaIdentifier;
import org.coflow.core.identify.CodaMetric;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Coda;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.identify.IdentifyWorkload;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The simulator for coflows in the dark (seed 002 §6.4): like {@link Simulator} (big switch, fluid
 * flows, events at arrivals, completions and the policy's decision times), but every flow starts at
 * its own time from a labelled workload ({@link IdentifyWorkload}: CODA's start-time models), and
 * the scheduler sees either the true coflows or the coflows CODA's online identification finds
 * ({@link CodaIdentifier}, the same code the master runs).
 *
 * <p>Arrivals are taken in rounds of {@code round} seconds, as the master takes reports: a flow
 * that starts in a round is admitted (and, with identification, clustered) at the round's end.
 * Every run, whatever it groups by, sees the same admission times. A true coflow's CCT runs from
 * the admission of its first flow to the completion of its last. Identified flows leave the
 * identifier when they complete.
 *
 * <p>As in the live master, a coflow leaves the scheduler's model when its last active flow
 * completes: if more of its flows start later (stretched arrivals), they form a fresh coflow with
 * no bytes sent, for the true coflows as for the identified ones.
 */
public final class IdentifiedSimulator {
  private static final double EPS_TIME = 1e-9;

  /** What the scheduler is told a flow's coflow is. */
  public enum Grouping {
    TRUE,
    IDENTIFIED
  }

  private final Trace trace;
  private final List<IdentifyWorkload.Flow> flows;
  private final double bandwidth;
  private final double round;
  private final CodaMetric metric;
  private final double eps;
  private final double tau;
  private Map<Long, Long> assigned = new HashMap<>();

  public IdentifiedSimulator(
      Trace trace,
      List<IdentifyWorkload.Flow> flows,
      double bandwidth,
      double round,
      CodaMetric metric,
      double eps,
      double tau) {
    if (!(round > 0)) {
      throw new IllegalArgumentException("the arrival round must be positive, got " + round);
    }
    this.trace = trace;
    this.flows = flows;
    this.bandwidth = bandwidth;
    this.round = round;
    this.metric = metric;
    this.eps = eps;
    this.tau = tau;
  }

  /** When a flow is admitted: the end of the round it starts in. */
  private double admission(IdentifyWorkload.Flow f) {
    return Math.ceil(f.startSec() / round - EPS_TIME) * round;
  }

  /**
   * How well the last run with {@link Grouping#IDENTIFIED} identified: each flow's coflow as it was
   * admitted, against the truth (flow-weighted precision and recall).
   */
  public Accuracy lastAccuracy() {
    Map<Long, String> truth = new HashMap<>();
    for (IdentifyWorkload.Flow f : flows) {
      truth.put(f.id(), f.coflow());
    }
    return Accuracy.of(assigned, truth);
  }

  public SimResult run(
      String label, SchedulingPolicy policy, Grouping grouping, ProgressListener progress) {
    long wallStart = System.nanoTime();
    List<TraceCoflow> coflows = trace.coflows();
    int n = coflows.size();
    Map<String, Integer> indexOf = new HashMap<>();
    for (int i = 0; i < n; i++) {
      indexOf.put(Integer.toString(coflows.get(i).id()), i);
    }
    Simulator.Coflows meta = Simulator.Coflows.of(coflows, Model.DEFAULT, bandwidth);
    double[] arrival = meta.arrival();
    Arrays.fill(arrival, Double.NaN); // here a coflow arrives with its first flow (below)
    double[] cct = new double[n];
    double[] delivered = new double[n];
    int[] left = new int[n];
    int[] truthOf = new int[flows.size()];
    for (int k = 0; k < flows.size(); k++) {
      IdentifyWorkload.Flow f = flows.get(k);
      int i = indexOf.get(f.coflow());
      truthOf[k] = i;
      left[i]++;
      double at = admission(f);
      if (!(arrival[i] <= at)) {
        arrival[i] = at;
      }
    }
    CodaIdentifier identifier =
        grouping == Grouping.IDENTIFIED ? new CodaIdentifier(metric, eps, tau) : null;
    if (identifier != null) {
      assigned = new HashMap<>();
    }
    // Model flow id (ClusterState numbers them 0, 1, ...) -> workload flow position.
    int[] workloadOf = new int[flows.size()];
    if (policy instanceof Coda coda) {
      coda.lateBinding(
          identifier == null
              ? null
              : (state, d) ->
                  identifier.extend(state, f -> flows.get(workloadOf[(int) f.id()]).id(), d));
    }
    ClusterState state = new ClusterState(Fabric.uniform(trace.ports(), bandwidth));
    Map<String, Coflow> live = new HashMap<>();
    long seq = 0;
    double now = 0;
    int next = 0;
    int finished = 0;
    long events = 0;
    double lastArrival = flows.isEmpty() ? 0 : admission(flows.get(flows.size() - 1));
    List<Flow> done = new ArrayList<>();
    List<IdentifyWorkload.Flow> batch = new ArrayList<>();
    FluidStep step = new FluidStep();
    while (next < flows.size() || !state.flows().isEmpty()) {
      if (state.flows().isEmpty() && admission(flows.get(next)) > now) {
        now = admission(flows.get(next));
      }
      batch.clear();
      int first = next;
      while (next < flows.size() && admission(flows.get(next)) <= now + EPS_TIME) {
        batch.add(flows.get(next++));
      }
      if (identifier != null && !batch.isEmpty()) {
        for (IdentifyWorkload.Flow f : batch) {
          identifier.add(f.id(), f.startSec(), f.src(), f.dst(), f.dstPort(), f.hadoop());
        }
        identifier.round();
      }
      for (int b = 0; b < batch.size(); b++) {
        IdentifyWorkload.Flow f = batch.get(b);
        String id = f.coflow();
        if (identifier != null) {
          long cluster = identifier.clusterOf(f.id());
          assigned.put(f.id(), cluster);
          id = "coda:" + cluster;
        }
        Coflow c = live.get(id);
        if (c == null || c.unfinishedFlows() == 0) {
          c = new Coflow(id, seq++, now, 1.0);
          state.addCoflow(c);
          live.put(id, c);
        }
        Flow mf = state.addFlow(c, f.src(), f.dst(), f.bytes(), now);
        workloadOf[(int) mf.id()] = first + b;
      }
      Schedule schedule = policy.schedule(state, now);
      events++;
      List<Flow> active = state.flows();
      double dt = next < flows.size() ? admission(flows.get(next)) - now : Double.POSITIVE_INFINITY;
      double decision = policy.nextDecisionTime(state, schedule, now);
      if (decision < now + dt) {
        dt = Math.max(decision - now, EPS_TIME);
      }
      dt = step.next(state, schedule, dt, Simulator.DEFAULT_COALESCE);
      if (dt == Double.POSITIVE_INFINITY) {
        throw new IllegalStateException(
            label
                + " stalled at t="
                + now
                + "s: "
                + active.size()
                + " flows are active but none has a rate and no event is pending");
      }
      FluidStep.advance(state, schedule, dt, done);
      now += dt;
      for (Flow f : done) {
        int w = workloadOf[(int) f.id()];
        state.finishFlow(f, now);
        if (identifier != null) {
          identifier.remove(flows.get(w).id());
        }
        int i = truthOf[w];
        delivered[i] += f.size();
        if (--left[i] == 0) {
          cct[i] = now - arrival[i];
          finished++;
        }
      }
      progress.progress(now, lastArrival, finished, n);
    }
    double wall = (System.nanoTime() - wallStart) / 1e9;
    return meta.result(label, cct, delivered, events, wall, false);
  }
}
