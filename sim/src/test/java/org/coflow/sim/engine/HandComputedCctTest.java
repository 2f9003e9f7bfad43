package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.StringReader;
import org.coflow.core.config.Config;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two coflows on one port pair, at 1 MB/s: A (10 MB) arrives at 0, B (1 MB) at the same instant
 * right after it. Each policy's CCTs are worked out by hand in the comments of the cases.
 */
class HandComputedCctTest {
  static final double MBPS = 1 << 20;
  static final String TWO = "2 2\n1 0 1 0 1 1:10.0\n2 0 1 0 1 1:1.0\n";

  static Trace trace(String text) throws Exception {
    return TraceParser.parse("hand", new StringReader(text));
  }

  static double[] run(String policy, Config config, String text) throws Exception {
    Simulator sim = new Simulator(trace(text), MBPS, 0);
    SimResult r =
        sim.run(
            Policies.create(policy, config),
            false,
            new InvariantChecker(true),
            ProgressListener.NONE);
    return r.cct();
  }

  @ParameterizedTest(name = "{0}: A={1}s B={2}s")
  @CsvSource({
    // Both at 0.5 MB/s until B ends at 2 s; A's last 9 MB at full rate: 2 + 9 = 11.
    "fair, 11, 2",
    // SEBF: B's bottleneck (1 s) is smaller, B first: 1 s; A after it: 1 + 10 = 11.
    "varys, 11, 1",
    // BSSI puts the larger coflow last on the shared port: B, then A.
    "sincronia, 11, 1",
    // One queue (A never exceeds 10 MiB); FIFO: A 10 s, then B: 11 s.
    "aalo, 10, 11",
    // Same queue and width, ties by arrival: as Aalo.
    "graviton, 10, 11",
    // Neither is heavy (initial H = 100 MiB): FIFO, A then B.
    "baraat, 10, 11",
    // One level for both, fair within it: as fair sharing.
    "creek, 11, 2",
    // D-CLAS as Aalo; one flow per coflow, so the intra-coflow queues change nothing.
    "coda, 10, 11",
  })
  void defaults(String policy, double a, double b) throws Exception {
    assertArrayEquals(new double[] {a, b}, run(policy, Config.defaults(), TWO), 1e-6);
  }

  @ParameterizedTest(name = "{0} with a 1 MiB threshold, Δ={1}: A={2}s B={3}s")
  @CsvSource({
    // Δ = 0: A leaves queue 0 right after its first MB (t = 1); B runs 1..2; A ends at 11.
    "aalo, 0, 11, 2",
    // Δ = 100 ms: at t = 1.0 A has sent exactly 1 MiB (not more), so the master sees it leave
    // at the next tick, 1.1; B runs 1.1..2.1.
    "aalo, 100, 11, 2.1",
    "coda, 0, 11, 2",
    // Graviton's queues: same thresholds, so the same demotion.
    "graviton, 0, 11, 2",
  })
  void demotion(String policy, long deltaMs, double a, double b) throws Exception {
    Config c =
        Config.defaults()
            .with(PolicyConfig.DCLAS_FIRST, 1L << 20)
            .with(PolicyConfig.DELTA_MS, deltaMs);
    assertArrayEquals(new double[] {a, b}, run(policy, c, TWO), 1e-6);
  }

  @org.junit.jupiter.api.Test
  void aaloWeightedSharesThePortBetweenQueuesByWeight() throws Exception {
    // 1 MiB first threshold, Δ = 0. A is alone until 1 s and drops to queue 1 as B (1 MB)
    // arrives in queue 0. Weighted sharing gives queue 0 weight 10 and queue 1 weight 9 of the
    // 10 queues: B gets 10/19 MB/s and ends at 1 + 1.9 = 2.9 (CCT 1.9); strict priority would
    // give B the whole port (CCT 1). A ends at 11 either way.
    String text = "2 2\n1 0 1 0 1 1:10.0\n2 1000 1 0 1 1:1.0\n";
    Config c =
        Config.defaults().with(PolicyConfig.DCLAS_FIRST, 1L << 20).with(PolicyConfig.DELTA_MS, 0L);
    assertArrayEquals(
        new double[] {11, 1.9},
        run("aalo", c.with(PolicyConfig.AALO_INTER_QUEUE, "weighted"), text),
        1e-6);
    assertArrayEquals(new double[] {11, 1}, run("aalo", c, text), 1e-6);
  }

  @org.junit.jupiter.api.Test
  void baraatHeavyTaskSharesItsClass() throws Exception {
    // H = 1 MiB: A is heavy after 1 s, then shares its class with B at 0.5 MB/s each: B ends at
    // 1 + 2 = 3; A has 2 MB at t = 3 and its last 8 MB take until 11.
    Config c = Config.defaults().with(PolicyConfig.BARAAT_INITIAL, 1L << 20);
    assertArrayEquals(new double[] {11, 3}, run("baraat", c, TWO), 1e-6);
  }

  @org.junit.jupiter.api.Test
  void creekDemotesOnBytesReceivedAtTheReceiver() throws Exception {
    // B arrives at 1 s. Creek with a 1 MiB first level and no starvation timer: A alone until
    // 1 s (1 MB received, not more), then A passes 1 MiB and drops a level, so B gets the port:
    // B ends at 2 (CCT 1); A ends at 11. Fair sharing would give B 2 s.
    String text = "2 2\n1 0 1 0 1 1:10.0\n2 1000 1 0 1 1:1.0\n";
    Config c =
        Config.defaults()
            .with(PolicyConfig.CREEK_FIRST, 1L << 20)
            .with(PolicyConfig.DELTA_MS, 0L)
            .with(PolicyConfig.CREEK_STARVATION_MS, 0L);
    assertArrayEquals(new double[] {11, 1}, run("creek", c, text), 1e-6);
    assertArrayEquals(new double[] {11, 2}, run("fair", Config.defaults(), text), 1e-6);
    // With the 200 ms starvation timer, A (no bandwidth since 1.0) is raised back to B's level at
    // 1.2 and stays there while served (its bytes do not reach the next level): B has 0.2 MB at
    // 1.2 and its last 0.8 MB at half rate take until 2.8 (CCT 1.8); A still ends at 11.
    Config starving = c.with(PolicyConfig.CREEK_STARVATION_MS, 200L);
    assertArrayEquals(new double[] {11, 1.8}, run("creek", starving, text), 1e-6);
  }

  @org.junit.jupiter.api.Test
  void fairSharingIsWaterFillingNotPerPortSplit() throws Exception {
    // A: 0->1 (4 MB). B: mappers 0, 3, 4 to reducer 2 (1 MB each). Port 2's downlink holds B's
    // three flows at 1/3 MB/s each; A shares port 0's uplink with one of them and water-filling
    // gives A the other 2/3 (a per-port split would leave it at 1/2). B ends at 3 s; A has 2 MB
    // by then and needs 2 s more: 5 s.
    String text = "5 2\n1 0 1 0 1 1:4.0\n2 0 3 0 3 4 1 2:3.0\n";
    assertArrayEquals(new double[] {5, 3}, run("fair", Config.defaults(), text), 1e-6);
  }
}
