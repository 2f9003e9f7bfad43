package org.coflow.sim.engine;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.model.PolicyType;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;

/**
 * Aalo's D-CLAS as the reference simulator coflowsim implements it ({@code CoflowSimulatorDark}), a
 * modelling mode of the simulator ({@link Model.Choice#DCLAS}), not a policy the master offers:
 *
 * <ul>
 *   <li>10 queues, the first up to 10 MiB sent, each next threshold 10x; a coflow's queue comes
 *       from its live cluster-wide bytes sent at each decision, and coflows only move down.
 *   <li>Inside a queue, FIFO by the time a coflow entered it (a demoted coflow goes to the back of
 *       its new queue), not by arrival.
 *   <li>Coflows in that order each get one equal split of what their ports have left: a flow gets
 *       min(sender's free uplink / the coflow's flows there, receiver's free downlink / the
 *       coflow's flows there), then the coflow's rates leave the ports; no max-min, no backfill.
 * </ul>
 */
public final class CoflowsimDark implements SchedulingPolicy {
  private static final int QUEUES = 10;
  private static final double FIRST = 10.0 * (1 << 20);
  private static final double MULTIPLIER = 10;

  /** coflowsim's {@code Constants.ZERO}, in its bits/s. */
  private static final double ZERO = 1e-3 / 8;

  private final List<List<Coflow>> queues = new ArrayList<>();
  private final Map<Coflow, Integer> queueOf = new IdentityHashMap<>();

  public CoflowsimDark() {
    for (int q = 0; q < QUEUES; q++) {
      queues.add(new ArrayList<>());
    }
  }

  @Override
  public String name() {
    return "aalo";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  static int queueFor(double bytesSent) {
    int q = 0;
    for (double k = FIRST; k < bytesSent && q < QUEUES - 1; k *= MULTIPLIER) {
      q++;
    }
    return q;
  }

  @Override
  public Schedule schedule(ClusterState state, double now) {
    for (List<Coflow> queue : queues) {
      queue.removeIf(c -> c.index() < 0);
    }
    queueOf.keySet().removeIf(c -> c.index() < 0);
    for (Coflow c : state.coflows()) {
      if (queueOf.putIfAbsent(c, 0) == null) {
        queues.get(0).add(c);
      }
    }
    for (int q = 0; q < QUEUES - 1; q++) {
      List<Coflow> moving = new ArrayList<>();
      for (Coflow c : queues.get(q)) {
        if (queueFor(c.bytesSent()) > q) {
          moving.add(c);
        }
      }
      queues.get(q).removeAll(moving);
      queues.get(q + 1).addAll(moving);
      for (Coflow c : moving) {
        queueOf.put(c, q + 1);
      }
    }
    Fabric fabric = state.fabric();
    int ports = fabric.size();
    double[] upFree = new double[ports];
    double[] downFree = new double[ports];
    for (int p = 0; p < ports; p++) {
      upFree[p] = fabric.uplink(p);
      downFree[p] = fabric.downlink(p);
    }
    int[] atSrc = new int[ports];
    int[] atDst = new int[ports];
    double[] rate = new double[state.flows().size()];
    Schedule s = Schedule.empty(state);
    int rank = 0;
    for (List<Coflow> queue : queues) {
      for (Coflow c : queue) {
        s.appendCoflow(c, rank++);
        List<Flow> flows = c.activeFlows();
        for (Flow f : flows) {
          if (upFree[f.src()] > ZERO && downFree[f.dst()] > ZERO) {
            atSrc[f.src()]++;
            atDst[f.dst()]++;
          }
        }
        for (Flow f : flows) {
          if (upFree[f.src()] > ZERO && downFree[f.dst()] > ZERO) {
            double r =
                Math.min(upFree[f.src()] / atSrc[f.src()], downFree[f.dst()] / atDst[f.dst()]);
            rate[f.index()] = r > ZERO ? r : 0; // coflowsim zeroes a share of ZERO or less
          }
        }
        for (Flow f : flows) {
          atSrc[f.src()] = 0;
          atDst[f.dst()] = 0;
          double r = rate[f.index()];
          if (r > 0) {
            upFree[f.src()] = Math.max(0, upFree[f.src()] - r);
            downFree[f.dst()] = Math.max(0, downFree[f.dst()] - r);
            s.setRate(f.index(), r);
          }
        }
      }
    }
    return s;
  }
}
