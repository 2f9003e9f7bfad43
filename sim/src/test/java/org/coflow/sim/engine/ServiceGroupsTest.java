package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.coflow.core.model.Fabric;
import org.coflow.core.policy.PairShares;
import org.junit.jupiter.api.Test;

/**
 * Events of {@link ServiceGroups} by hand. The test for near groups in {@link ServiceGroups#rate}
 * takes its size margin from the largest flow registered, so it may list a group that the group's
 * own first flow's margin would not: such a group must neither lengthen the event, nor finish a
 * flow in it, nor move its end when it lies past the horizon. The rate pass in one loop ({@link
 * ServiceGroups#rateByKey}, {@link ServiceGroups#rateByPorts}) is held to the per-group pass over
 * runs of random events.
 */
class ServiceGroupsTest {
  /** A flow of 1e12 bytes: its billionth, 1,000 bytes, is the size margin of every group. */
  private static final double BIG = 1e12;

  /** Every flow its own group, each moving at 1,000 B/s; flows are numbered in order. */
  private static ServiceGroups oneFlowPerGroup(double... sizes) {
    ServiceGroups g = new ServiceGroups(sizes.length);
    for (int f = 0; f < sizes.length; f++) {
      g.addFlow(f, sizes[f]);
      g.join(g.slot(f, 2 * f, 2 * f + 1), f, sizes[f]);
    }
    return g;
  }

  private static void rateAll(ServiceGroups g, double horizon, double coalesce) {
    g.startRates(horizon, coalesce);
    for (int j = 0; j < g.active; j++) {
      g.rate(j, 1000);
    }
  }

  /** Serves the event; returns the flows that finish in it, in the order served. */
  private static List<Integer> serve(ServiceGroups g, double dt, List<Double> left) {
    List<Integer> finished = new ArrayList<>();
    g.serve(
        dt,
        (group, flow, bytes) -> {
          finished.add(flow);
          left.add(bytes);
        });
    g.deactivateIdle();
    return finished;
  }

  @Test
  void aGroupListedOnlyByTheLargestFlowsMarginNeitherLengthensTheEventNorFinishesInIt() {
    // A finishes at 0.5 s, C at 0.55 s (within the window of 1.2 x 0.5 s), B at 0.65 s (past it,
    // by 50 bytes: listed by the margin alone).
    ServiceGroups g = oneFlowPerGroup(500, 550, 650, BIG);
    rateAll(g, 1.0, 0.2);
    assertEquals(3, g.nearCount(), "A, C, and B by the largest flow's margin");
    double dt = g.until();
    assertEquals(0.55, dt, 0, "the window ends at C's completion, not B's");
    List<Double> left = new ArrayList<>();
    assertEquals(List.of(0, 1), serve(g, dt, left), "B has 100 bytes left: it does not finish");
    assertEquals(List.of(500.0, 550.0), left);

    // The next event: B's 100 bytes at 1,000 B/s.
    rateAll(g, 1.0, 0.2);
    assertEquals(2, g.active, "B's group and the big flow's");
    dt = g.until();
    assertEquals(0.1, dt, 1e-12);
    left.clear();
    assertEquals(List.of(2), serve(g, dt, left));
    assertEquals(100, left.get(0), 1e-9);
  }

  @Test
  void aGroupListedOnlyByTheMarginPastTheHorizonLeavesTheEventAtTheHorizon() {
    // B would finish at 0.65 s, 50 bytes past the next arrival at 0.6 s: listed, first completion
    // at 0.65 s, yet the event ends at the horizon and B moves on.
    ServiceGroups g = oneFlowPerGroup(650, BIG);
    rateAll(g, 0.6, 0);
    assertEquals(1, g.nearCount(), "B, by the largest flow's margin");
    double dt = g.until();
    assertEquals(0.6, dt, 0);
    List<Double> left = new ArrayList<>();
    assertEquals(List.of(), serve(g, dt, left));

    rateAll(g, 1.0, 0);
    dt = g.until();
    assertEquals(0.05, dt, 1e-12);
    assertEquals(List.of(0), serve(g, dt, left));
    assertEquals(50, left.get(0), 1e-9);
  }

  /** Three flows per group of random sizes, in two copies of the same groups. */
  private static ServiceGroups[] twoCopies(int groups, int ports, Random random) {
    ServiceGroups[] copies = {new ServiceGroups(groups), new ServiceGroups(groups)};
    for (int f = 0; f < 3 * groups; f++) {
      int key = f % groups;
      double bytes = 1 + random.nextInt(1_000_000);
      for (ServiceGroups g : copies) {
        g.addFlow(f, bytes);
        g.join(g.slot(key, key / ports, key % ports), f, bytes);
      }
    }
    return copies;
  }

  /**
   * After the same event's rate pass in one loop ({@code loop}) and per group ({@code perGroup}):
   * the same rates, service and near groups, the same event end, and the same flows finishing with
   * the same bytes left. Returns the flows that finished.
   */
  private static List<Integer> sameEvent(ServiceGroups loop, ServiceGroups perGroup, int event) {
    int n = perGroup.active;
    assertEquals(n, loop.active, "event " + event);
    assertArrayEquals(Arrays.copyOf(perGroup.rate, n), Arrays.copyOf(loop.rate, n), "rates");
    assertArrayEquals(Arrays.copyOf(perGroup.service, n), Arrays.copyOf(loop.service, n));
    assertEquals(perGroup.nearCount(), loop.nearCount(), "near groups, event " + event);
    double dt = loop.until();
    assertEquals(perGroup.until(), dt, 0, "event " + event);
    List<Double> leftLoop = new ArrayList<>();
    List<Double> leftPerGroup = new ArrayList<>();
    List<Integer> finished = serve(loop, dt, leftLoop);
    assertEquals(serve(perGroup, dt, leftPerGroup), finished, "event " + event);
    assertEquals(leftPerGroup, leftLoop);
    return finished;
  }

  @Test
  void theRatePassByKeyIsThePerGroupPassEventForEvent() {
    // Rates by key, a fifth of them 0, drawn afresh every event. The listing of a near group is
    // the same method in both passes: what is held here is the loop (its bound in particular).
    Random random = new Random(42);
    int groups = 300;
    ServiceGroups[] g = twoCopies(groups, 17, random);
    double[] rateOf = new double[groups];
    for (int event = 0; event < 10_000 && g[0].active > 0; event++) {
      for (int key = 0; key < groups; key++) {
        rateOf[key] = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(1000);
      }
      g[0].startRates(1e6, 0.01);
      g[0].rateByKey(rateOf);
      g[1].startRates(1e6, 0.01);
      for (int j = 0; j < g[1].active; j++) {
        g[1].rate(j, rateOf[g[1].key[j]]);
      }
      sameEvent(g[0], g[1], event);
    }
    assertEquals(0, g[0].active, "every flow finished");
  }

  @Test
  void theRatePassByPortsIsThePerGroupPassEventForEvent() {
    // Fair sharing's levels on 20 ports of 1,000 B/s, water-filled afresh as flows finish.
    Random random = new Random(7);
    int ports = 20;
    ServiceGroups[] g = twoCopies(ports * ports, ports, random);
    PairShares shares = new PairShares(Fabric.uniform(ports, 1000));
    for (int key = 0; key < ports * ports; key++) {
      shares.add(key / ports, key % ports, 3);
    }
    for (int event = 0; event < 10_000 && g[0].active > 0; event++) {
      shares.fill();
      g[0].startRates(1e6, 0.01);
      g[0].rateByPorts(shares);
      g[1].startRates(1e6, 0.01);
      for (int j = 0; j < g[1].active; j++) {
        g[1].rate(j, Math.min(shares.upLevel(g[1].src[j]), shares.downLevel(g[1].dst[j])));
      }
      for (int f : sameEvent(g[0], g[1], event)) {
        shares.add(f % (ports * ports) / ports, f % ports, -1);
      }
    }
    assertEquals(0, g[0].active, "every flow finished");
  }
}
