package org.coflow.sim.engine;

import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Schedule;

/**
 * Checks every decision of a run (its schedule, or the rates a simulator moves its flows at, or its
 * pair or group rates): no port over capacity, no negative or infinite rate, and (unless exempt)
 * work conservation: no active flow between a port with spare uplink and a port with spare
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
    checkPorts(fabric, up, down, state::activeFlows, now, policy);
  }

  /**
   * The same checks for a simulator that keeps the rate each active flow moves at by dense index
   * ({@code rate[i]} for flow {@code i}, 0 for a flow that does not move).
   */
  public void checkRates(ClusterState state, double[] rate, double now, String policy) {
    int ports = state.fabric().size();
    double[] up = new double[ports];
    double[] down = new double[ports];
    for (int i = 0, n = state.flows().size(); i < n; i++) {
      double r = rate[i];
      if (!(r >= 0) || Double.isInfinite(r)) {
        throw new AssertionError(
            policy + " at t=" + now + ": rate " + r + " for " + state.flows().get(i));
      }
      up[state.srcAt(i)] += r;
      down[state.dstAt(i)] += r;
    }
    checkPorts(state.fabric(), up, down, state::activeFlows, now, policy);
  }

  /**
   * The same checks for a run simulated by pair: {@code count[k]} active flows from {@code src[k]}
   * to {@code dst[k]} at {@code rate[k]} each, for the first {@code n} pairs.
   */
  public void checkPairs(
      Fabric fabric,
      int[] src,
      int[] dst,
      int[] count,
      double[] rate,
      int n,
      double now,
      String policy) {
    int ports = fabric.size();
    double[] up = new double[ports];
    double[] down = new double[ports];
    int[] flows = new int[ports * ports];
    for (int k = 0; k < n; k++) {
      if (!(rate[k] >= 0) || Double.isInfinite(rate[k])) {
        throw new AssertionError(
            policy + " at t=" + now + ": rate " + rate[k] + " for " + src[k] + "->" + dst[k]);
      }
      up[src[k]] += rate[k] * count[k];
      down[dst[k]] += rate[k] * count[k];
      flows[src[k] * ports + dst[k]] += count[k];
    }
    checkPorts(fabric, up, down, (u, d) -> flows[u * ports + d], now, policy);
  }

  private void checkPorts(
      Fabric fabric,
      double[] up,
      double[] down,
      java.util.function.IntBinaryOperator flows,
      double now,
      String policy) {
    int ports = fabric.size();
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
        if (spareDown > 1e-6 * fabric.downlink(d) && flows.applyAsInt(u, d) > 0) {
          throw new AssertionError(
              policy
                  + " at t="
                  + now
                  + ": not work-conserving: "
                  + flows.applyAsInt(u, d)
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
