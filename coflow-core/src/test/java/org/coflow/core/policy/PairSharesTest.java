package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

/** The simulator's pair-level entry point gives exactly the rates of fair sharing's schedule. */
class PairSharesTest {

  @Test
  void everyFlowGetsBitForBitTheRateOfItsPairAsSharesAreAddedAndRemoved() {
    Random random = new Random(23);
    int compared = 0;
    for (int round = 0; round < 200; round++) {
      int ports = 2 + random.nextInt(round < 100 ? 6 : 40);
      Fabric fabric = fabric(ports, random);
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

  /**
   * Fair sharing lists the pairs it water-fills in the state's slot order, which follows how flows
   * came and went: the rates must not depend on it, with few pairs (resources rise in the order the
   * pairs touch them) or many (they rise by port), on fabrics with many equal capacities (ties).
   */
  @Test
  void fairSharingGivesTheSameBitsWhateverOrderThePairsCameIn() {
    Random random = new Random(31);
    int few = 0;
    int many = 0;
    for (int round = 0; round < 300; round++) {
      int ports = 2 + random.nextInt(30);
      Fabric fabric = fabric(ports, random);
      List<int[]> flows = new ArrayList<>();
      for (int k = 0, n = 1 + random.nextInt(3 * ports * ports / 4 + 1); k < n; k++) {
        flows.add(new int[] {random.nextInt(ports), random.nextInt(ports)});
      }
      ClusterState sorted = new ClusterState(fabric);
      Coflow a = new Coflow("a", 0, 0, 1);
      sorted.addCoflow(a);
      flows.sort((x, y) -> x[0] != y[0] ? x[0] - y[0] : x[1] - y[1]);
      for (int[] f : flows) {
        sorted.addFlow(a, f[0], f[1], 1e9, 0);
      }
      // The same flows shuffled, after flows on other pairs that then finish: slots out of order,
      // some freed and taken again.
      ClusterState shuffled = new ClusterState(fabric);
      Coflow gone = new Coflow("gone", 0, 0, 1);
      Coflow b = new Coflow("b", 1, 0, 1);
      shuffled.addCoflow(gone);
      shuffled.addCoflow(b);
      List<Flow> early = new ArrayList<>();
      for (int k = 0; k < ports; k++) {
        early.add(shuffled.addFlow(gone, random.nextInt(ports), random.nextInt(ports), 1e9, 0));
      }
      Collections.shuffle(flows, random);
      int half = flows.size() / 2;
      for (int[] f : flows.subList(0, half)) {
        shuffled.addFlow(b, f[0], f[1], 1e9, 0);
      }
      for (Flow f : early) {
        shuffled.finishFlow(f, 0);
      }
      for (int[] f : flows.subList(half, flows.size())) {
        shuffled.addFlow(b, f[0], f[1], 1e9, 0);
      }
      Schedule expected = new FairSharing().schedule(sorted, 0);
      Schedule actual = new FairSharing().schedule(shuffled, 0);
      double[][] rate = new double[ports][ports];
      for (Flow f : sorted.flows()) {
        rate[f.src()][f.dst()] = expected.rate(f.index());
      }
      for (Flow f : shuffled.flows()) {
        assertEquals(
            rate[f.src()][f.dst()],
            actual.rate(f.index()),
            0.0,
            "round " + round + ", flow " + f.src() + "->" + f.dst());
      }
      if (shuffled.activePairs() < 2 * ports) {
        few++;
      } else {
        many++;
      }
    }
    assertTrue(few > 50 && many > 50, few + " rounds with few pairs, " + many + " with many");
  }

  /** Mostly equal capacities (ties between ports), some different, a few all but empty. */
  private static Fabric fabric(int ports, Random random) {
    double[] up = new double[ports];
    double[] down = new double[ports];
    for (int p = 0; p < ports; p++) {
      up[p] = capacity(random);
      down[p] = capacity(random);
    }
    return new Fabric(up, down);
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
