package org.coflow.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The testbed on four network-namespace hosts at 20 Mbit/s: real agents, real TCP through tc-shaped
 * veths. Skipped, with the reason, where namespaces cannot be made (not root, no iproute2).
 *
 * <p>The workload makes priority visible: a large coflow L (12 MB from host 1 to a reducer on host
 * 0), registered with weight 20 as a framework would, arrives first; a small coflow S (3 MB on the
 * same host pair) a second later. Per-flow fair sharing splits the pair's link between them, so S,
 * smaller, ends first. Sincronia (an ORDER policy) ranks L first (its weight over its bytes beats
 * S's), so L must end first: its priority holds on every connection of the pair, which the agent
 * splits L over (MaxNum 3, one peer). Each agent holds at most MaxNum connections, as the kernel
 * also counts, and every reducer's bytes match the map outputs' CRC32s, through the agents and
 * through the baseline's direct connections.
 */
@Timeout(300)
class TestbedTest {
  private static final long MB = 1 << 20;
  private static final int MAX_NUM = 3;

  /** L's weight: Sincronia ranks it first while it has fewer than this many times S's bytes. */
  private static final double LARGE_WEIGHT = 20;

  /** Kept after the run: the hosts' logs are what to read when it fails. */
  private static final Path dir = Path.of("target", "testbed-test").toAbsolutePath();

  @BeforeAll
  static void needsNamespaces() {
    String why = Network.unavailableReason();
    assumeTrue(why == null, "testbed skipped: " + why);
  }

  private static Workload priorityWorkload() {
    Workload.Coflow large =
        new Workload.Coflow(
            0,
            0,
            new int[] {1},
            new int[] {1},
            List.of(new Workload.Reducer(0, 12 * MB)),
            LARGE_WEIGHT);
    Workload.Coflow small =
        new Workload.Coflow(
            1, 1000, new int[] {1}, new int[] {1}, List.of(new Workload.Reducer(0, 3 * MB)));
    return new Workload("priority test", 4, List.of(large, small));
  }

  @Test
  void priorityOrderConnectionBudgetAndIntactBytes() throws Exception {
    Workload w = priorityWorkload();
    Setup fair = Setup.courier("fair", MAX_NUM);
    Setup sincronia = Setup.courier("sincronia", MAX_NUM);
    Setup baseline = Setup.baseline();
    TestbedBench.Outcome o =
        TestbedBench.run(
            new TestbedBench.Plan(
                4,
                new Network.Link(20e6, 64 << 10, "reno", 0, 128 << 10),
                w,
                List.of(baseline, fair, sincronia),
                1,
                5,
                120,
                dir),
            TestbedRun.Progress.NONE);
    for (Map.Entry<Setup, List<RunResult>> e : o.runs().entrySet()) {
      RunResult r = e.getValue().get(0);
      assertTrue(r.intact(), e.getKey().label() + ": " + r.failures());
      assertEquals(0, r.corrupt(), e.getKey().label());
      // The bytes crossed host 0's shaped link: 15 MB of payload at least.
      long received = r.counters().get("rxBytes")[0];
      assertTrue(received >= 15 * MB, e.getKey().label() + ": host 0 received " + received);
      if (!e.getKey().isBaseline()) {
        // MaxNum, plus at most one split connection still draining for each other peer whose
        // first connection opened meanwhile (three peers: two more).
        int bound = MAX_NUM + 2;
        for (int h = 0; h < 4; h++) {
          assertTrue(
              r.agentMaxConnections()[h] <= bound,
              e.getKey().label() + ": agent of host " + h + " held " + r.agentMaxConnections()[h]);
        }
        // The kernel also sees the latency lanes: one per peer, outside MaxNum.
        assertTrue(
            r.peakHostConnections() <= bound + 3,
            e.getKey().label() + ": the kernel saw " + r.peakHostConnections() + " on one host");
        assertTrue(r.peakHostConnections() >= 1, "samples saw the agents' connections");
      }
    }
    RunResult underFair = o.runs().get(fair).get(0);
    RunResult underSincronia = o.runs().get(sincronia).get(0);
    // Ends are arrival + CCT on the run's clock (S arrives 1 s after L).
    double[] fairEnds = ends(w, underFair);
    double[] orderEnds = ends(w, underSincronia);
    System.out.printf(
        "testbed: L and S end at %.2f s and %.2f s under fair sharing, %.2f s and %.2f s under"
            + " Sincronia%n",
        fairEnds[0], fairEnds[1], orderEnds[0], orderEnds[1]);
    assertTrue(
        fairEnds[1] < fairEnds[0],
        "under fair sharing the small coflow, arriving later, ends first: L "
            + fairEnds[0]
            + " s, S "
            + fairEnds[1]
            + " s");
    assertTrue(
        orderEnds[0] < orderEnds[1],
        "under Sincronia the weighted large coflow, ranked first, ends first: L "
            + orderEnds[0]
            + " s, S "
            + orderEnds[1]
            + " s");
    // The baseline opened its connections without agents: up to 3 copies from host 0.
    assertTrue(o.runs().get(baseline).get(0).peakHostConnections() >= 1);
  }

  private static double[] ends(Workload w, RunResult r) {
    double[] out = new double[w.coflows().size()];
    for (int c = 0; c < out.length; c++) {
      out[c] = w.coflows().get(c).arrivalMs() / 1e3 + r.cct()[c];
    }
    return out;
  }
}
