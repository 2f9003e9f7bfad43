package org.coflow.sim.engine;

import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Fabric;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The simulator's one event loop, and what a fluid engine plugs into it. The loop owns the clock,
 * the coflows' arrivals (at their exact admission times, no batching) and their completion times;
 * an engine keeps the flows between events in whatever form lets it move them cheaply (one by one,
 * by (sender, receiver) pair, by Creek's level groups, only when their rates change) and does three
 * things: admit a coflow, ask the policy for rates and say how long they hold, move every flow that
 * long and report the coflows that finished.
 *
 * <p>At each event: if nothing is active the clock jumps to the next arrival; every coflow that has
 * arrived by now is admitted; the engine decides, bounded by the next arrival; the clock moves by
 * what it returned. So every engine sees arrivals, decisions and completions in the same order, and
 * differs from the others only in how it represents flows.
 */
abstract class EventLoop {
  final List<TraceCoflow> coflows;
  final int ports;
  final double bandwidth;
  final double coalesce;
  final Model model;

  /** The policy replayed, and the invariant checker (or null), from {@link #run} on. */
  SchedulingPolicy policy;

  InvariantChecker checker;

  /**
   * The flows and coflows as the policy sees them, for an engine that keeps them there (every one
   * but {@link PairSimulator}); made afresh for each run.
   */
  ClusterState state;

  /** Decisions taken so far. */
  long events;

  EventLoop(List<TraceCoflow> coflows, int ports, double bandwidth, double coalesce, Model model) {
    this.coflows = coflows;
    this.ports = ports;
    this.bandwidth = bandwidth;
    this.coalesce = coalesce;
    this.model = model;
  }

  /** Told of each coflow the engine finished in an event, in the order its last flow finished. */
  interface Finished {
    void coflow(int seq, double deliveredBytes);
  }

  /**
   * Prepares the engine for {@link #policy} before the first event (an engine that needs something
   * of the policy, such as its pair shares, takes it here).
   */
  void start() {}

  /** Flows are active. */
  boolean busy() {
    return !state.flows().isEmpty();
  }

  /** Admits trace coflow number {@code seq}, arriving at {@code now}. */
  void admit(TraceCoflow tc, int seq, double now) {
    Simulator.admit(state, tc, seq, now);
  }

  /**
   * Asks the policy for the rates from {@code now} on and returns how long they hold: at most
   * {@code untilArrival} (infinite when no arrival is left), up to the next completion or decision
   * time. Throws if flows wait while nothing will ever happen.
   */
  abstract double decide(double now, double untilArrival);

  /**
   * Moves every flow for {@code dt}, from {@code now} to {@code end} ({@code now + dt}), and tells
   * {@code finished} of each coflow that finished.
   */
  abstract void advance(double now, double dt, double end, Finished finished);

  /** The policy runs behind Courier's merging (only the per-flow engine replays that). */
  boolean courier() {
    return false;
  }

  /** Replays the coflows under {@code policy}: one event after another until all have finished. */
  final SimResult run(
      SchedulingPolicy policy,
      Simulator.Coflows meta,
      InvariantChecker checker,
      ProgressListener progress,
      long wallStart) {
    int n = coflows.size();
    double[] arrival = meta.arrival();
    Results results = new Results(arrival, n);
    double lastArrival = n == 0 ? 0 : arrival[n - 1];
    double now = 0;
    int next = 0;
    this.policy = policy;
    this.checker = checker;
    this.state = new ClusterState(Fabric.uniform(ports, bandwidth));
    this.events = 0;
    start();
    while (next < n || busy()) {
      if (!busy() && arrival[next] > now) {
        now = arrival[next];
      }
      while (next < n && arrival[next] <= now) {
        admit(coflows.get(next), next, arrival[next]);
        next++;
      }
      double dt = decide(now, next < n ? arrival[next] - now : Double.POSITIVE_INFINITY);
      double end = now + dt;
      results.at = end;
      advance(now, dt, end, results);
      now = end;
      progress.progress(now, lastArrival, results.finished, n);
    }
    double wall = (System.nanoTime() - wallStart) / 1e9;
    return meta.result(policy.name(), results.cct, results.delivered, events, wall, courier());
  }

  /** Completion times and delivered bytes per coflow, as the engine reports them. */
  private final class Results implements Finished {
    final double[] arrival;
    final double[] cct;
    final double[] delivered;
    double at;
    int finished;

    Results(double[] arrival, int n) {
      this.arrival = arrival;
      this.cct = new double[n];
      this.delivered = new double[n];
    }

    @Override
    public void coflow(int seq, double deliveredBytes) {
      cct[seq] = model.recorded(arrival[seq], at);
      delivered[seq] = deliveredBytes;
      finished++;
    }
  }
}
