package org.coflow.core.policy;

import org.coflow.core.model.ClusterState;
import org.coflow.core.model.PolicyType;

/**
 * A coflow scheduling policy: given what the master knows and the current time, a rate and a
 * priority class for every active flow.
 *
 * <p>Contract, shared by the live master and the simulator:
 *
 * <ul>
 *   <li>Pure with respect to the outside world: no clocks, threads, sockets or randomness without a
 *       seed. Time comes in as {@code now} (seconds, never decreasing between calls). A policy may
 *       keep state between calls (queue membership, learned thresholds), updated only from its
 *       arguments.
 *   <li>The returned rates never exceed any port's capacity and are work-conserving after the
 *       shared {@link Backfill}: no flow is left with spare capacity at both of its ports.
 *   <li>{@link #nextDecisionTime} tells an event-driven caller when the decision would change even
 *       though no flow arrives or finishes (a queue threshold crossing, a coordination tick, a
 *       starvation timer); the live master ignores it and simply runs every interval.
 * </ul>
 */
public interface SchedulingPolicy {

  /** The name users select the policy by ({@code fair}, {@code aalo}, ...). */
  String name();

  PolicyType type();

  /** Decides rates and priorities for every active flow of {@code state} at time {@code now}. */
  Schedule schedule(ClusterState state, double now);

  /**
   * Hands back a schedule this policy returned that its caller will never read again, so that the
   * next decision may reuse its arrays ({@link Schedule#recycle}). Optional: the live master never
   * calls it; the simulator does after each event.
   */
  default void recycle(Schedule done) {}

  /**
   * The earliest time after {@code now} at which this policy would decide differently with no
   * arrival or completion in between, assuming flows keep the rates of {@code schedule}; or {@link
   * Double#POSITIVE_INFINITY}.
   */
  default double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    return Double.POSITIVE_INFINITY;
  }

  /**
   * Whether this policy's decisions read, of the flows' progress, only each coflow's totals ({@link
   * org.coflow.core.model.Coflow#bytesSent()}, its sizes) and which flows are active, never a
   * single flow's bytes sent or left. The simulator then replays it with an engine that moves a
   * flow only when its rate changes, where a single flow's counts lag behind between events (much
   * faster on the whole trace); a policy that says so wrongly decides on stale counts there, which
   * the simulator's differential test catches. False unless a policy declares it.
   */
  default boolean readsCoflowTotalsOnly() {
    return false;
  }

  /**
   * Called by a caller that promises, from now on, to move every flow between two decisions at
   * exactly the rate of the last decision and to ask {@link #nextDecisionTime} after each one (a
   * fluid replay: the simulator). A policy may then carry work from one decision to the next where
   * the rates tell it nothing can have changed; its decisions must be the same as without. The live
   * master never calls it: agents' byte counts do not follow the rates exactly.
   */
  default void movesAsDecided() {}

  /**
   * A promise beyond {@link #movesAsDecided}: the caller reads each decision's rates as written
   * ({@link Schedule#written}) and passes over its held steps ({@link Schedule#hold}), whose flows
   * move at their rates already but for those a step lists as changed ({@link HeldSteps#changes}),
   * which it takes from there, and hands each decision back ({@link #recycle}) before asking for
   * the next. A policy may then hold, rather than write, a step that redoes the step of the last
   * decision for the same flows of a coflow. A reader of any other kind gets the held rates written
   * on demand, so this changes no rate, only what a decision costs. The live master never calls it.
   */
  default void passesOverHeld() {}
}
