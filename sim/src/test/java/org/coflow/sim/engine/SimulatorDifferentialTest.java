package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.core.config.Config;
import org.coflow.core.merge.MergeConfig;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.PolicyType;
import org.coflow.core.policy.Allocator;
import org.coflow.core.policy.Backfill;
import org.coflow.core.policy.ForwardingPolicy;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.PortBudget;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulator against a per-flow reference on the first 60 coflows of the Facebook trace, exact
 * completion times ({@code --coalesce 0}): every policy, with and without Courier, gives every
 * coflow the same CCT (relative difference at most 1e-9) in {@link Simulator} with the invariant
 * checker on and in the plain {@link ReferenceSimulator}; and fair sharing's coflow-by-coflow
 * water-filling gives the same CCTs as water-filling over the flat list of every flow. Fair sharing
 * without Courier runs in {@link PairSimulator} (flows grouped by sender-receiver pair, invariants
 * checked per pair) against the reference's per-flow schedule, so its row checks that the two entry
 * points of {@code FairSharing} agree; Creek without Courier runs in {@link LevelPairSimulator}
 * (flows grouped by level, sender and receiver, invariants checked per group) the same way; Aalo,
 * Baraat and Graviton without Courier run in {@link LazyFlowSimulator} (flows moved only when their
 * rate changes).
 */
@Execution(ExecutionMode.CONCURRENT)
class SimulatorDifferentialTest {
  static final double GBPS = 125_000_000;
  static final double TOLERANCE = 1e-9;
  static Trace slice;

  @BeforeAll
  static void load() throws Exception {
    Trace full = TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt"));
    slice = full.first(60);
  }

  static Iterable<String> policies() {
    return Policies.NAMES;
  }

  @ParameterizedTest
  @MethodSource("policies")
  void sameCctsAsThePerFlowReference(String name) {
    compare(name, false);
  }

  /**
   * Courier-wrapped runs cost more (every decision walks every waiting flow, and flows beyond
   * MaxNum peers add events): about 4 minutes of CPU for all nine on these 60 coflows, two policies
   * at a time (the class runs its tests concurrently).
   */
  @ParameterizedTest
  @MethodSource("policies")
  void sameCctsAsThePerFlowReferenceWithCourier(String name) {
    compare(name, true);
  }

  private static void compare(String name, boolean courier) {
    compare(slice, name, courier);
  }

  private static void compare(Trace slice, String name, boolean courier) {
    SimResult fast =
        new Simulator(slice, GBPS, 0)
            .run(
                policy(name, courier),
                courier,
                new InvariantChecker(!courier),
                ProgressListener.NONE);
    double[] reference = reference(slice, policy(name, courier), courier, null);
    assertSame(name + (courier ? "+courier" : ""), reference, fast.cct());
  }

  /** Completion times from the reference engine ({@code bin/coflow sim --engine reference}). */
  static double[] reference(
      Trace trace, SchedulingPolicy policy, boolean courier, InvariantChecker checker) {
    return new Simulator(trace, GBPS, 0)
        .run(policy, courier, checker, ProgressListener.NONE, Simulator.Engine.REFERENCE)
        .cct();
  }

  /** Fair sharing as one water-filling over the flat list of all active flows, flow by flow. */
  static final class FlatFair implements SchedulingPolicy {
    private Allocator allocator;

    @Override
    public String name() {
      return "fair";
    }

    @Override
    public PolicyType type() {
      return PolicyType.RATE;
    }

    @Override
    public Schedule schedule(ClusterState state, double now) {
      if (allocator == null) {
        allocator = new Allocator(state.fabric().size());
      }
      Schedule s = Schedule.empty(state);
      PortBudget budget = new PortBudget(state.fabric());
      for (int i = 0; i < state.flows().size(); i++) {
        s.append(i, 0);
      }
      allocator.maxMinFair(state.flows(), budget, s);
      Backfill.fill(state, budget, s, null, allocator);
      return s;
    }
  }

  @Test
  void fairSharingByCoflowEqualsTheFlatWaterFilling() {
    double[] flat = reference(slice, new FlatFair(), false, new InvariantChecker(true));
    double[] ours = reference(slice, policy("fair", false), false, new InvariantChecker(true));
    assertSame("fair", flat, ours);
  }

  /**
   * The simulator tells the policies that flows move as decided, and CODA then keeps its flows'
   * levels between decisions while Graviton notes which coflows a decision serves only when asked
   * for its next decision time: on the first 150 coflows (default completion window), the same
   * events and bit for bit the same CCTs as without the promise (behind a wrapper that does not
   * pass it on, as the live master never makes it). Both runs take the per-flow loop (the promised
   * one behind a wrapper that passes the promise on), so that only the promise differs: bare
   * Graviton would run in {@link LazyFlowSimulator}, whose sums round differently.
   */
  @ParameterizedTest
  @ValueSource(strings = {"coda", "graviton"})
  void workCarriedUnderThePromiseChangesNoCct(String name) throws Exception {
    Trace first =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(150);
    Simulator sim = new Simulator(first, GBPS, Simulator.DEFAULT_COALESCE);
    SimResult kept = sim.run(new Promised(policy(name, false)), false, null, ProgressListener.NONE);
    SimResult fresh =
        sim.run(new Unpromised(policy(name, false)), false, null, ProgressListener.NONE);
    assertEquals(fresh.events(), kept.events(), "events");
    for (int i = 0; i < fresh.cct().length; i++) {
      assertEquals(
          Double.doubleToLongBits(fresh.cct()[i]),
          Double.doubleToLongBits(kept.cct()[i]),
          "CCT of coflow " + i + ": " + kept.cct()[i] + " s against " + fresh.cct()[i] + " s");
    }
  }

  /** A policy behind a wrapper that passes everything on, {@code movesAsDecided} included. */
  private static final class Promised extends ForwardingPolicy {
    Promised(SchedulingPolicy inner) {
      super(inner);
    }

    @Override
    public void movesAsDecided() {
      inner.movesAsDecided();
    }
  }

  /** A policy behind a wrapper that passes everything on but {@code movesAsDecided}. */
  private static final class Unpromised extends ForwardingPolicy {
    Unpromised(SchedulingPolicy inner) {
      super(inner);
    }
  }

  private static SchedulingPolicy policy(String name, boolean courier) {
    SchedulingPolicy p = Policies.create(name, Config.defaults());
    return courier
        ? new CourierPolicy(
            p, MergeConfig.MAX_NUM.defaultValue(), MergeConfig.MIN_SIZE.defaultValue())
        : p;
  }

  private static void assertSame(String what, double[] expected, double[] actual) {
    assertEquals(expected.length, actual.length, what);
    for (int i = 0; i < expected.length; i++) {
      assertTrue(expected[i] > 0, what + ": coflow " + i + " never finished in the reference");
      double rel = Math.abs(actual[i] - expected[i]) / expected[i];
      assertTrue(
          rel <= TOLERANCE,
          what
              + ": coflow "
              + i
              + " CCT "
              + actual[i]
              + " s against the reference's "
              + expected[i]
              + " s (relative difference "
              + rel
              + ")");
    }
  }
}
