package org.coflow.bench.sim;

import java.util.List;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Fabric;
import org.coflow.api.model.Flow;
import org.coflow.master.policy.Schedule;

/**
 * Checks every schedule of a run: no port over capacity, no negative or infinite rate, and (unless
 * exempt) work conservation: no active flow between a port with spare uplink and a port with spare
 * downlink. Throws on the first violation with the time, port pair and numbers. Costs the flows
 * that move plus ports squared, so it can run at every event of a whole trace.
 */
public final class InvariantChecker {
  private final boolean checkWorkConservation;

  /**
   * @param checkWorkConservation false for Courier-wrapped runs, where MaxNum delays flows by
   *     design
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
    int[] served = schedule.served();
    for (int k = 0; k < schedule.servedSize(); k++) {
      Flow f = flows.get(served[k]);
      double r = schedule.rate(f.index());
      if (!(r >= 0) || Double.isInfinite(r)) {
        throw new AssertionError(policy + " at t=" + now + ": rate " + r + " for " + f);
      }
      up[f.src()] += r;
      down[f.dst()] += r;
    }
    for (int p = 0; p < ports; p++) {
      if (up[p] > fabric.uplink(p) * (1 + 1e-9) + 1e-3) {
        throw new AssertionError(
            policy
                + " at t="
                + now
                + ": uplink of port "
                + p
                + " at "
                + up[p]
                + " B/s, capacity "
                + fabric.uplink(p));
      }
      if (down[p] > fabric.downlink(p) * (1 + 1e-9) + 1e-3) {
        throw new AssertionError(
            policy
                + " at t="
                + now
                + ": downlink of port "
                + p
                + " at "
                + down[p]
                + " B/s, capacity "
                + fabric.downlink(p));
      }
    }
    if (!checkWorkConservation) {
      return;
    }
    for (int u = 0; u < ports; u++) {
      double spareUp = fabric.uplink(u) - up[u];
      if (spareUp <= 1e-6 * fabric.uplink(u)) {
        continue;
      }
      for (int d = 0; d < ports; d++) {
        double spareDown = fabric.downlink(d) - down[d];
        if (spareDown > 1e-6 * fabric.downlink(d) && state.activeFlows(u, d) > 0) {
          throw new AssertionError(
              policy
                  + " at t="
                  + now
                  + ": not work-conserving: "
                  + state.activeFlows(u, d)
                  + " flow(s) from port "
                  + u
                  + " to port "
                  + d
                  + " while the uplink has "
                  + spareUp
                  + " B/s and the downlink "
                  + spareDown
                  + " B/s spare");
        }
      }
    }
  }
}
