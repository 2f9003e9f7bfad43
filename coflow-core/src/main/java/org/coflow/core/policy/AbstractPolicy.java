package org.coflow.core.policy;

import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;

/**
 * Template shared by every policy: a fresh budget, the policy's own allocation (which also lists
 * every flow in priority order), then the shared work-conserving {@link #backfill}.
 */
public abstract class AbstractPolicy implements SchedulingPolicy {
  private PortBudget budget;
  private Allocator allocator;
  private Fabric fabric;
  private Schedule spare;

  /** The last decision's schedule, and its {@link Schedule#rateChanges} as it was returned. */
  private Schedule decided;

  private long decidedChanges;

  /** Whether the caller passes over held steps: see {@link #passesOverHeld}. */
  private boolean holds;

  /**
   * Allocates rates from {@code budget} and appends every active flow of {@code state} to {@code
   * schedule}'s order exactly once, most important first.
   */
  protected abstract void allocate(
      ClusterState state, double now, PortBudget budget, Schedule schedule);

  @Override
  public final Schedule schedule(ClusterState state, double now) {
    if (fabric != state.fabric()) {
      fabric = state.fabric();
      budget = new PortBudget(fabric);
      allocator = new Allocator(fabric.size());
      if (holds) {
        allocator.holdRedone();
      }
    } else {
      budget.reset(fabric);
      allocator.forgetFinished();
    }
    // The last decision's rates are those its steps gave if its schedule came back unchanged and
    // with no rate raised (a caller that moves flows at them hands it back to be recycled).
    allocator.beginDecision(
        spare != null
            && spare == decided
            && spare.rateChanges() == decidedChanges
            && !spare.raised());
    Schedule schedule = Schedule.recycle(state, spare);
    spare = null;
    allocate(state, now, budget, schedule);
    if (schedule.orderSize() != state.flows().size()) {
      throw new IllegalStateException(
          name()
              + " ordered "
              + schedule.orderSize()
              + " of "
              + state.flows().size()
              + " active flows");
    }
    Backfill.fill(state, budget, schedule, null, allocator);
    observe(state, schedule, now);
    decided = schedule;
    decidedChanges = schedule.rateChanges();
    return schedule;
  }

  /**
   * From now on, a max-min or backfill step replayed or redone from the step the last decision made
   * for the same flows is held in the schedule rather than written ({@link Schedule#hold}), with
   * the flows whose rates changed listed.
   */
  @Override
  public void passesOverHeld() {
    holds = true;
    if (allocator != null) {
      allocator.holdRedone();
    }
  }

  @Override
  public void recycle(Schedule done) {
    spare = done;
  }

  /** Sees the final schedule (after backfill), for policies that track service over time. */
  protected void observe(ClusterState state, Schedule schedule, double now) {}

  /** The allocator of the current fabric (valid inside {@link #allocate}). */
  protected final Allocator allocator() {
    return allocator;
  }

  /** Appends all active flows of {@code c} to the order with one priority class. */
  protected static void appendCoflow(Coflow c, int priorityClass, Schedule schedule) {
    schedule.appendCoflow(c, priorityClass);
  }

  @Override
  public String toString() {
    return name();
  }
}
