package org.coflow.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One event of {@link ServiceGroups} by hand: the test for near groups in {@link
 * ServiceGroups#rate} takes its size margin from the largest flow registered, so it may list a
 * group that is not near; such a group must neither shorten the event nor finish a flow in it.
 */
class ServiceGroupsTest {
  private static final int A = 0;
  private static final int B = 1;
  private static final int BIG = 2;

  @Test
  void aGroupListedOnlyByTheLargestFlowsMarginChangesNothingInTheEvent() {
    ServiceGroups g = new ServiceGroups(3);
    g.addFlow(A, 500);
    g.addFlow(B, 650);
    g.addFlow(BIG, 1e12); // its billionth, 1,000 bytes, is the margin of every group's test
    int a = g.slot(0, 0, 1);
    g.join(a, A, 500);
    int b = g.slot(1, 2, 3);
    g.join(b, B, 650);
    int big = g.slot(2, 4, 5);
    g.join(big, BIG, 1e12);

    g.startRates(1.0, 0);
    g.rate(a, 1000); // A finishes at 0.5 s: the event's bound falls to 0.5 s
    g.rate(b, 1000); // B at 0.65 s, 150 bytes past the bound: listed by the margin alone
    g.rate(big, 1000);
    assertEquals(2, g.nearCount(), "A, and B by the largest flow's margin");
    double dt = g.until();
    assertEquals(0.5, dt, 0, "the event ends at A's completion, not B's");

    List<Integer> finished = new ArrayList<>();
    List<Double> left = new ArrayList<>();
    g.serve(
        dt,
        (group, flow, bytes) -> {
          finished.add(flow);
          left.add(bytes);
        });
    assertEquals(List.of(A), finished, "B has 150 bytes left: it does not finish");
    assertEquals(500, left.get(0), 0);
    g.deactivateIdle();

    // The next event: B's 150 bytes at 1,000 B/s.
    g.startRates(1.0, 0);
    assertEquals(2, g.active, "B's group and the big flow's");
    for (int j = 0; j < g.active; j++) {
      g.rate(j, 1000);
    }
    dt = g.until();
    assertEquals(0.15, dt, 1e-12);
    finished.clear();
    left.clear();
    g.serve(
        dt,
        (group, flow, bytes) -> {
          finished.add(flow);
          left.add(bytes);
        });
    assertEquals(List.of(B), finished);
    assertEquals(150, left.get(0), 1e-9);
  }
}
