package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.core.config.Config;
import org.coflow.core.merge.MergeConfig;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Invariants of every policy on the shipped Facebook trace: no port over capacity and work
 * conservation at every event (checked by {@link InvariantChecker}), every byte delivered exactly
 * once, every coflow finished and none before its isolated lower bound. The default run uses the
 * first 60 coflows (10 with Courier); {@code -Pbench} runs the whole trace.
 */
class InvariantsTest {
  static final double GBPS = 125_000_000;
  static Trace full;

  @BeforeAll
  static void load() throws Exception {
    full = TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt"));
    assertEquals(526, full.coflows().size());
  }

  static Iterable<String> policies() {
    return Policies.NAMES;
  }

  @ParameterizedTest
  @MethodSource("policies")
  void slice(String policy) {
    check(full.first(60), policy, false);
  }

  /** Courier runs have many more events (flows beyond MaxNum peers wait), so a shorter slice. */
  @ParameterizedTest
  @MethodSource("policies")
  void sliceWithCourier(String policy) {
    check(full.first(10), policy, true);
  }

  @Tag("bench")
  @ParameterizedTest
  @MethodSource("policies")
  void wholeTrace(String policy) {
    check(full, policy, false, Simulator.DEFAULT_COALESCE);
  }

  static void check(Trace trace, String name, boolean courier) {
    check(trace, name, courier, 0);
  }

  static void check(Trace trace, String name, boolean courier, double coalesce) {
    SchedulingPolicy policy = Policies.create(name, Config.defaults());
    if (courier) {
      policy =
          new CourierPolicy(
              policy, MergeConfig.MAX_NUM.defaultValue(), MergeConfig.MIN_SIZE.defaultValue());
    }
    // Every schedule checked.
    SimResult r =
        new Simulator(trace, GBPS, coalesce)
            .run(policy, courier, new InvariantChecker(!courier), ProgressListener.NONE);
    assertEquals(trace.coflows().size(), r.coflows());
    for (int i = 0; i < r.coflows(); i++) {
      assertTrue(r.cct()[i] > 0, name + ": coflow " + r.ids()[i] + " never finished");
      assertEquals(
          r.bytes()[i],
          r.delivered()[i],
          1e-6 * r.bytes()[i],
          name + ": coflow " + r.ids()[i] + " delivered a different number of bytes than it has");
      assertTrue(
          r.cct()[i] >= r.lowerBound()[i] * (1 - 1e-9),
          name
              + ": coflow "
              + r.ids()[i]
              + " finished in "
              + r.cct()[i]
              + " s, below its isolated lower bound "
              + r.lowerBound()[i]);
    }
  }
}
