package org.coflow.sim.engine;

import java.util.Arrays;
import java.util.List;
import org.coflow.core.model.Fabric;
import org.coflow.core.policy.FairSharing;
import org.coflow.core.policy.PairShares;
import org.coflow.core.policy.SharesByPair;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The event loop's engine for per-flow fair sharing ({@link SharesByPair}), run on (sender,
 * receiver) pairs instead of flows.
 *
 * <p>Max-min fair sharing gives every active flow on one pair the same rate, whatever its coflow,
 * so a pair is simulated as one object with a number of flows ({@link FairSharing#pairShares}, the
 * same water-filling the policy's per-flow schedule uses, kept up to date as flows come and go).
 * Within a pair, flows finish by the virtual-time trick of fair-queueing simulators ({@link
 * ServiceGroups}). An event costs the active pairs (at most ports squared) and the flows that
 * finish in it, not the active flows.
 *
 * <p>It follows the per-flow loop's rules: events at arrivals and completions, flows completing
 * within the completion window of the first one completing together at the last one's time, a flow
 * finishing once what it has left is within a nanosecond of service or a billionth of its size.
 * Bytes are counted per pair rather than per flow, so completion times may differ from the per-flow
 * loop's in the last digits ({@code PairSimulatorTest} bounds the difference).
 */
final class PairSimulator extends EventLoop {
  /** The active pairs (key sender * ports + receiver) and their flows. */
  private final ServiceGroups pairs;

  /** Per flow (numbered in admission order): its coflow. */
  private int[] flowCoflow = new int[1024];

  private int flows;
  private PairShares shares;
  private Fabric fabric;
  private final Finishing finishing = new Finishing();

  /** Per coflow: its flows not yet finished, and the bytes its finished flows delivered. */
  private final int[] unfinished;

  private final double[] delivered;
  private int activeFlows;

  PairSimulator(
      List<TraceCoflow> coflows, int ports, double bandwidth, double coalesce, Model model) {
    super(coflows, ports, bandwidth, coalesce, model);
    this.pairs = new ServiceGroups(ports * ports);
    this.unfinished = new int[coflows.size()];
    this.delivered = new double[coflows.size()];
  }

  @Override
  void start() {
    this.fabric = Fabric.uniform(ports, bandwidth);
    this.shares = ((SharesByPair) policy).pairShares(fabric);
  }

  @Override
  boolean busy() {
    return activeFlows > 0;
  }

  @Override
  double decide(double now, double untilArrival) {
    // The policy's water-filling on the active pairs, and the next completion.
    shares.fill();
    events++;
    ServiceGroups g = pairs;
    g.startRates(untilArrival, coalesce);
    g.rateByPorts(shares);
    if (checker != null) {
      checker.checkPairs(fabric, g.src, g.dst, g.count, g.rate, g.active, now, policy.name());
    }
    // Extended over the completion window but not past the next arrival.
    double dt = g.until();
    if (dt == Double.POSITIVE_INFINITY) {
      throw Simulator.stalled(policy.name(), now, activeFlows);
    }
    return dt;
  }

  @Override
  void advance(double now, double dt, double end, Finished finished) {
    // Serve every pair for dt; take out the flows that finish within it.
    ServiceGroups g = pairs;
    finishing.size = 0;
    g.serve(dt, finishing);
    // Flows leave in admission order (the per-flow loop finishes them by id, the same order).
    int done = finishing.size;
    int[] flowsDone = finishing.flows;
    Arrays.sort(flowsDone, 0, done);
    for (int k = 0; k < done; k++) {
      int f = flowsDone[k];
      int c = flowCoflow[f];
      delivered[c] += g.size(f);
      activeFlows--;
      if (--unfinished[c] == 0) {
        finished.coflow(c, delivered[c]);
      }
    }
    g.deactivateIdle();
  }

  /** The flows that finish in the event under way; each leaves its pair's share as it goes. */
  private final class Finishing implements ServiceGroups.Finished {
    int[] flows = new int[64];
    int size;

    @Override
    public void finished(int group, int flow, double left) {
      shares.add(pairs.src[group], pairs.dst[group], -1);
      if (size == flows.length) {
        flows = Arrays.copyOf(flows, 2 * size);
      }
      flows[size++] = flow;
    }
  }

  /** Admits a coflow's flows (M mappers x R reducers) at their pairs. */
  @Override
  void admit(TraceCoflow tc, int seq, double now) {
    int added = 0;
    for (int r = 0; r < tc.reducers().length; r++) {
      double size = tc.flowBytes(r);
      int to = tc.reducers()[r];
      for (int m : tc.mappers()) {
        int j = pairs.slot(m * ports + to, m, to);
        int f = flows++;
        if (f == flowCoflow.length) {
          flowCoflow = Arrays.copyOf(flowCoflow, 2 * f);
        }
        flowCoflow[f] = seq;
        pairs.addFlow(f, size);
        pairs.join(j, f, size);
        shares.add(m, to, 1);
        added++;
      }
    }
    unfinished[seq] = added;
    activeFlows += added;
  }
}
