package org.coflow.bench.sim;

import java.util.List;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Fabric;
import org.coflow.api.model.Flow;
import org.coflow.master.policy.Schedule;

/**
 * Checks every schedule of a run: no port over capacity, no negative rate, and (unless exempt)
 * work conservation: no flow with spare capacity at both of its ports. Throws on the first
 * violation with the time, port or flow, and numbers.
 */
public final class InvariantChecker {
  private final boolean checkWorkConservation;

  /**
   * @param checkWorkConservation false for Courier-wrapped runs, where MaxNum delays flows by design
   */
  public InvariantChecker(boolean checkWorkConservation) {
    this.checkWorkConservation = checkWorkConservation;
  }

  public void check(ClusterState state, Schedule schedule, double now, String policy) {
    Fabric fabric = state.fabric();
    int ports = fabric.size();
    double[] up = new double[ports];
    double[] down = new double[ports];
    List<Flow> flows = state.flows();
    for (Flow f : flows) {
      double r = schedule.rate(f.index());
      if (!(r >= 0) || Double.isInfinite(r)) {
        throw new AssertionError(policy + " at t=" + now + ": rate " + r + " for " + f);
      }
      up[f.src()] += r;
      down[f.dst()] += r;
    }
    for (int p = 0; p < ports; p++) {
      if (up[p] > fabric.uplink(p) * (1 + 1e-9) + 1e-3) {
        throw new AssertionError(policy + " at t=" + now + ": uplink of port " + p + " at " + up[p]
            + " B/s, capacity " + fabric.uplink(p));
      }
      if (down[p] > fabric.downlink(p) * (1 + 1e-9) + 1e-3) {
        throw new AssertionError(policy + " at t=" + now + ": downlink of port " + p + " at " + down[p]
            + " B/s, capacity " + fabric.downlink(p));
      }
    }
    if (checkWorkConservation) {
      for (Flow f : flows) {
        double spareUp = fabric.uplink(f.src()) - up[f.src()];
        double spareDown = fabric.downlink(f.dst()) - down[f.dst()];
        double tol = 1e-6 * Math.min(fabric.uplink(f.src()), fabric.downlink(f.dst()));
        if (spareUp > tol && spareDown > tol) {
          throw new AssertionError(policy + " at t=" + now + ": not work-conserving: " + f
              + " has rate " + schedule.rate(f.index()) + " while its uplink has " + spareUp
              + " B/s and its downlink " + spareDown + " B/s spare");
        }
      }
    }
  }
}
