package org.coflow.sim.engine;

import java.util.Comparator;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Schedule;

/**
 * One event of a fluid simulation, shared by {@link Simulator} and {@link IdentifiedSimulator}: how
 * long until the next event, and moving every served flow for that long.
 */
final class FluidStep {
  /** Flows that would finish within this many seconds of each other finish in the same event. */
  static final double SECONDS = 1e-9;

  private double[] untilDone = new double[1024];

  /**
   * What the last {@link #scan} found: the earliest completion, the end of its window (with the
   * margin that filters the flows, see {@link #scan}), and the times kept after it.
   */
  private double firstDone;

  private double bound;
  private int candidates;

  /**
   * The time to the next event: {@code dt} (the next arrival or decision), or the next flow
   * completion if sooner, extended to the last completion within {@code (1 + coalesce)} of it but
   * never past {@code dt}. Infinite when nothing is pending and no flow moves. {@code coalesce}
   * must be 0 or more (the simulators check it).
   */
  double next(ClusterState state, Schedule schedule, double dt, double coalesce) {
    scan(state, schedule, coalesce, false);
    return until(dt, coalesce);
  }

  /**
   * The pass over the served flows behind {@link #next}, for the rates as they are: {@link #until}
   * then gives the event's length for any {@code dt}. With {@code sumRates} it also sums the rates
   * per coflow in the same pass and hands the sums to the schedule ({@link
   * Schedule#knowCoflowRates}), so that a policy reading them next does not walk the flows again.
   */
  void scan(ClusterState state, Schedule schedule, double coalesce, boolean sumRates) {
    assert coalesce >= 0 : coalesce;
    int m = schedule.servedSize();
    // Flows in index order (forwards over the state's arrays), not in the order the policy set
    // rates in: the served flows are many and scattered.
    int[] order = schedule.servedInOrder();
    // One pass, dividing only for the flows that may finish within the window of the earliest
    // completion seen so far: a flow whose bytes left exceed that window's end times its rate (with
    // a margin of 1e-12, far above the rounding of a division) cannot finish by the window of the
    // final earliest completion either, which only comes sooner. The times kept are the same
    // quotients as dividing for every flow, so the event's length is too.
    firstDone = Double.POSITIVE_INFINITY;
    bound = Double.POSITIVE_INFINITY;
    candidates = 0;
    if (!sumRates) {
      for (int k = 0; k < m; k++) {
        int i = order[k];
        double rate = schedule.rate(i);
        double left = state.remainingAt(i);
        if (left <= bound * rate) {
          keep(left / rate, coalesce);
        }
      }
      return;
    }
    // The same pass, summing the rates per coflow as Schedule.coflowRates adds them (a loop of its
    // own: a test per flow costs the passes that do not sum). Flows of one coflow come in runs, a
    // run's sum is held in a register and stored once (the same additions in the same order).
    double[] sums = new double[state.coflows().size()];
    Coflow run = null;
    int at = 0;
    double sum = 0;
    for (int k = 0; k < m; k++) {
      int i = order[k];
      double rate = schedule.rate(i);
      Coflow c = state.coflowAt(i);
      if (c != run) {
        if (run != null) {
          sums[at] = sum;
        }
        run = c;
        at = c.index();
        sum = sums[at];
      }
      sum += rate;
      double left = state.remainingAt(i);
      if (left <= bound * rate) {
        keep(left / rate, coalesce);
      }
    }
    if (run != null) {
      sums[at] = sum;
    }
    schedule.knowCoflowRates(sums);
  }

  /**
   * A served flow's time to finish, divided for because it may fall within the window of the
   * earliest completion: kept if it does so far. The window's end is taken no lower than the
   * smallest normal double: below it the margin would round away.
   */
  private void keep(double t, double coalesce) {
    if (t < firstDone) {
      firstDone = t;
      bound = Math.max(t * (1 + coalesce) * (1 + 1e-12), Double.MIN_NORMAL);
    }
    if (t <= firstDone * (1 + coalesce)) {
      if (candidates == untilDone.length) {
        untilDone = java.util.Arrays.copyOf(untilDone, 2 * candidates);
      }
      untilDone[candidates++] = t;
    }
  }

  /** {@link #next} for the flows of the last {@link #scan}. */
  double until(double dt, double coalesce) {
    if (firstDone <= dt) {
      double limit = Math.min(dt, firstDone * (1 + coalesce));
      dt = firstDone;
      for (int k = 0; k < candidates; k++) {
        double t = untilDone[k];
        if (t > dt && t <= limit) {
          dt = t;
        }
      }
    }
    return dt;
  }

  /**
   * Moves every served flow for {@code dt}; the flows that finish within it go to {@code done}, by
   * id.
   */
  static void advance(ClusterState state, Schedule schedule, double dt, List<Flow> done) {
    done.clear();
    List<Flow> active = state.flows();
    int[] order = schedule.servedInOrder();
    for (int k = 0, n = schedule.servedSize(); k < n; k++) {
      int i = order[k];
      double r = schedule.rate(i);
      double rem = state.remainingAt(i);
      double moved = r * dt;
      if (rem - moved <= r * SECONDS || rem - moved <= 1e-9 * state.sizeAt(i)) {
        // Finishes within this event (possibly before its end: it then idles).
        state.addSentAt(i, rem);
        done.add(active.get(i));
      } else {
        state.addSentAt(i, moved);
      }
    }
    // Flows finishing together leave in a canonical order (by id): removal reshuffles the
    // active-flow lists, and policies that walk flows in list order (greedy allocation, Courier's
    // selection) would otherwise depend on the order the policy happened to set rates in.
    done.sort(BY_ID);
  }

  private static final Comparator<Flow> BY_ID = Comparator.comparingLong(Flow::id);
}
