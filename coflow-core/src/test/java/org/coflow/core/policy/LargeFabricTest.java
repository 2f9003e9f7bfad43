package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.junit.jupiter.api.Test;

/**
 * The model and every policy on the largest fabric the master accepts ({@code
 * coflow.master.maxHosts} = 16,384): what they keep per (sender, receiver) pair follows the pairs
 * in use, so a decision costs memory in the flows and the ports, not in the 268 million pairs of
 * the fabric (a dense table of even one byte per pair would allocate 256 MiB).
 */
class LargeFabricTest {
  private static final int PORTS = 16_384;
  private static final long BUDGET = 128L << 20;

  @Test
  void everyPolicyDecidesOnTheLargestFabricWithinAMemoryBudget() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (String name : Policies.NAMES) {
      long before = threads.getCurrentThreadAllocatedBytes();
      ClusterState state = new ClusterState(Fabric.uniform(PORTS, 1e9));
      // A wide coflow of 40,000 flows on 800 pairs spread over the fabric (a group large enough
      // to be water-filled by pair), then a small one behind it.
      Coflow wide = new Coflow("wide", 0, 0, 1);
      state.addCoflow(wide);
      for (int f = 0; f < 40_000; f++) {
        int pair = f % 800;
        state.addFlow(wide, (pair * 20) % PORTS, PORTS - 1 - (pair % 40) * 400, 1e9, 0);
      }
      Coflow small = new Coflow("small", 1, 0.5, 1);
      state.addCoflow(small);
      state.addFlow(small, PORTS - 1, 0, 1e6, 0.5);
      SchedulingPolicy policy = Policies.create(name, Config.defaults());
      Schedule first = policy.schedule(state, 1);
      Schedule second = policy.schedule(state, 2);
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;
      assertTrue(
          allocated < BUDGET,
          name + " allocated " + (allocated >> 20) + " MiB on " + PORTS + " ports");
      for (Schedule s : new Schedule[] {first, second}) {
        // Every port within its capacity, and some of it used.
        double[] up = new double[PORTS];
        double[] down = new double[PORTS];
        double total = 0;
        for (int i = 0; i < state.flows().size(); i++) {
          up[state.srcAt(i)] += s.rate(i);
          down[state.dstAt(i)] += s.rate(i);
          total += s.rate(i);
        }
        for (int p = 0; p < PORTS; p++) {
          assertTrue(up[p] <= 1e9 * (1 + 1e-9) && down[p] <= 1e9 * (1 + 1e-9), name + " port " + p);
        }
        assertTrue(total > 0, name + " moved nothing");
        if (name.equals("fair")) {
          // Each receiver of the wide coflow shares its downlink among 1,000 flows; the small
          // coflow's flow has both its ports to itself.
          for (int i = 0; i < state.flows().size(); i++) {
            double expected = state.flows().get(i).coflow() == small ? 1e9 : 1e6;
            assertEquals(expected, s.rate(i), expected * 1e-12, "fair, flow " + i);
          }
        }
      }
    }
  }
}
