package org.coflow.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Events of {@link ServiceGroups} by hand. The test for near groups in {@link ServiceGroups#rate}
 * takes its size margin from the largest flow registered, so it may list a group that the group's
 * own first flow's margin would not: such a group must neither lengthen the event, nor finish a
 * flow in it, nor move its end when it lies past the horizon.
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

  @Test
  void theRatePassByKeyIsThePerGroupPassEventForEvent() {
    // Groups of several flows with rates by key, some of them 0: over a run of events, the pass in
    // one loop (rateByKey) and the per-group one list the same near groups, end each event at the
    // same time and finish the same flows with the same bytes left.
    int groups = 300;
    java.util.Random random = new java.util.Random(42);
    double[] rateOf = new double[groups];
    ServiceGroups byKey = new ServiceGroups(groups);
    ServiceGroups perGroup = new ServiceGroups(groups);
    for (int f = 0; f < 3 * groups; f++) {
      int key = f % groups;
      double bytes = 1 + random.nextInt(1_000_000);
      for (ServiceGroups g : List.of(byKey, perGroup)) {
        g.addFlow(f, bytes);
        g.join(g.slot(key, key % 17, key % 13), f, bytes);
      }
    }
    for (int event = 0; event < 10_000 && byKey.active > 0; event++) {
      for (int key = 0; key < groups; key++) {
        rateOf[key] = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(1000);
      }
      byKey.startRates(1e6, 0.01);
      byKey.rateByKey(rateOf);
      perGroup.startRates(1e6, 0.01);
      for (int j = 0; j < perGroup.active; j++) {
        perGroup.rate(j, rateOf[perGroup.key[j]]);
      }
      assertEquals(perGroup.nearCount(), byKey.nearCount(), "near groups, event " + event);
      double dt = byKey.until();
      assertEquals(perGroup.until(), dt, 0, "event " + event);
      List<Double> leftByKey = new ArrayList<>();
      List<Double> leftPerGroup = new ArrayList<>();
      assertEquals(serve(perGroup, dt, leftPerGroup), serve(byKey, dt, leftByKey));
      assertEquals(leftPerGroup, leftByKey);
    }
    assertEquals(0, byKey.active, "every flow finished");
  }
}
