package org.coflow.master.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.Fabric;
import org.coflow.api.model.Flow;
import org.junit.jupiter.api.Test;

/** The simulator's pair-level entry point gives exactly the rates of fair sharing's schedule. */
class PairSharesTest {

  @Test
  void everyFlowGetsBitForBitTheRateOfItsPairAsSharesAreAddedAndRemoved() {
    Random random = new Random(23);
    int compared = 0;
    for (int round = 0; round < 200; round++) {
      int ports = 2 + random.nextInt(round < 100 ? 6 : 40);
      double[] up = new double[ports];
      double[] down = new double[ports];
      for (int p = 0; p < ports; p++) {
        // Mostly equal capacities (ties between ports), some different, a few all but empty.
        up[p] = capacity(random);
        down[p] = capacity(random);
      }
      Fabric fabric = new Fabric(up, down);
      PairShares shares = new FairSharing().pairShares(fabric);
      int[][] flows = new int[ports][ports];
      for (int change = 0; change < 6; change++) {
        int pairs = 1 + random.nextInt(2 * ports * ports / 3 + 1);
        for (int k = 0; k < pairs; k++) {
          int u = random.nextInt(ports);
          int d = random.nextInt(ports);
          int delta = random.nextInt(5) - Math.min(2, flows[u][d]);
          delta = Math.max(delta, -flows[u][d]);
          flows[u][d] += delta;
          shares.add(u, d, delta);
        }
        shares.fill();
        ClusterState state = new ClusterState(fabric);
        Coflow c = new Coflow("c", 0, 0, 1);
        state.addCoflow(c);
        for (int u = 0; u < ports; u++) {
          for (int d = 0; d < ports; d++) {
            assertEquals(flows[u][d], shares.flows(u, d));
            for (int k = 0; k < flows[u][d]; k++) {
              state.addFlow(c, u, d, 1e9, 0);
            }
          }
        }
        Schedule schedule = new FairSharing().schedule(state, 0);
        for (Flow f : state.flows()) {
          assertEquals(
              schedule.rate(f.index()),
              shares.rate(f.src(), f.dst()),
              0.0,
              "round " + round + ", flow " + f.src() + "->" + f.dst());
          compared++;
        }
      }
    }
    assertTrue(compared > 10_000, compared + " flows compared");
  }

  private static double capacity(Random random) {
    int kind = random.nextInt(10);
    if (kind < 6) {
      return 125e6;
    }
    if (kind < 9) {
      return 1e6 * (1 + random.nextInt(200));
    }
    return 1e-4;
  }

  @Test
  void removingMoreFlowsThanAPairHasIsRefusedAndChangesNothing() {
    PairShares shares = new PairShares(Fabric.uniform(3, 10));
    shares.add(0, 1, 2);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> shares.add(0, 1, -3));
    assertTrue(e.getMessage().contains("0->1 has 2 flows"), e.getMessage());
    assertEquals(2, shares.flows(0, 1));
    shares.add(2, 1, 3);
    shares.fill();
    // Downlink 1 carries all 5 flows: 2 each.
    assertEquals(2, shares.rate(0, 1), 0.0);
    assertEquals(2, shares.rate(2, 1), 0.0);
    assertEquals(0, shares.rate(1, 0), 0.0);
  }
}
