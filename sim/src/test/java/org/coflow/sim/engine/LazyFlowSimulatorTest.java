package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.core.config.Config;
import org.coflow.core.policy.Baraat;
import org.coflow.core.policy.ForwardingPolicy;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LazyFlowSimulator} (flows moved only when their rate changes) against {@link Simulator}'s
 * per-flow loop, which moves every served flow at every event, at the default completion window on
 * the first 200 coflows: the same CCT for every coflow (relative difference at most 1e-9), every
 * coflow's bytes delivered exactly once, and the same events up to the few that rounding moves
 * across the window's edge. The run must go through both ways of taking rate changes (the heap
 * mended per flow and rebuilt), through flows the schedule stops serving and through accounts
 * summed afresh. (The per-flow loop runs Graviton without {@code movesAsDecided}, which a wrapper
 * does not pass on: {@code GravitonPromiseTest} shows both ways decide alike. {@code
 * SimulatorDifferentialTest} covers the three at {@code --coalesce 0} through {@link Simulator}'s
 * routing.)
 */
class LazyFlowSimulatorTest {
  static Trace first;

  @BeforeAll
  static void load() throws Exception {
    first = TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"aalo", "aalo weighted", "baraat", "graviton"})
  void givesThePerFlowLoopsCompletionTimes(String variant) {
    double coalesce = Simulator.DEFAULT_COALESCE;
    String name = variant.split(" ")[0];
    Config config = configOf(variant);
    SchedulingPolicy policy = Policies.create(name, config);
    assertTrue(policy.readsCoflowTotalsOnly(), name + " is simulated by its rate changes");
    LazyFlowSimulator lazy =
        new LazyFlowSimulator(
            first.coflows(),
            first.ports(),
            SimulatorDifferentialTest.GBPS,
            coalesce,
            Model.DEFAULT);
    Simulator.Coflows meta =
        Simulator.Coflows.of(first.coflows(), Model.DEFAULT, SimulatorDifferentialTest.GBPS);
    SimResult byChanges =
        lazy.run(
            policy, meta, new InvariantChecker(true), ProgressListener.NONE, System.nanoTime());
    SimResult byFlows =
        new Simulator(first, SimulatorDifferentialTest.GBPS, coalesce)
            .run(new PerFlow(Policies.create(name, config)), false, null, ProgressListener.NONE);
    assertTrue(lazy.mended > 1000, "rate changes mended in the heap: " + lazy.mended);
    assertTrue(lazy.rebuilt > 1000, "rate changes taken by a rebuild: " + lazy.rebuilt);
    assertTrue(lazy.stopped > 100, "moving flows stopped: " + lazy.stopped);
    assertTrue(lazy.resums() > 100, "accounts summed afresh: " + lazy.resums());
    assertEquals(byFlows.events(), byChanges.events(), 3, "events");
    for (int i = 0; i < byFlows.cct().length; i++) {
      double rel = Math.abs(byChanges.cct()[i] - byFlows.cct()[i]) / byFlows.cct()[i];
      assertTrue(
          rel <= 1e-9,
          name
              + ": coflow "
              + i
              + ": "
              + byChanges.cct()[i]
              + " s by rate changes, "
              + byFlows.cct()[i]
              + " s flow by flow");
      double bytes = byChanges.bytes()[i];
      assertEquals(
          bytes, byChanges.delivered()[i], 1e-9 * bytes, name + ": coflow " + i + " bytes");
    }
  }

  /**
   * Baraat's first class taken by pair ({@link Baraat#firstClass}) gives the run that taking it
   * from the schedule flow by flow gives, bit for bit: the flows are re-anchored in the same order,
   * so every sum is made in the same order. The run goes through decisions that take the class by
   * pair (reading coflows whose flows did not change from what the last decision left), and through
   * decisions that find it unchanged and skip its flows.
   */
  @Test
  void baraatsFirstClassByPairGivesTheSameRunBitForBit() {
    Simulator.Coflows meta =
        Simulator.Coflows.of(first.coflows(), Model.DEFAULT, SimulatorDifferentialTest.GBPS);
    LazyFlowSimulator byPair = lazy();
    SimResult pairs =
        byPair.run(
            Policies.create("baraat", Config.defaults()),
            meta,
            new InvariantChecker(true),
            ProgressListener.NONE,
            System.nanoTime());
    LazyFlowSimulator byFlow = lazy();
    byFlow.firstClassByPair = false;
    SimResult flows =
        byFlow.run(
            Policies.create("baraat", Config.defaults()),
            meta,
            null,
            ProgressListener.NONE,
            System.nanoTime());
    assertTrue(byPair.classTaken > 1000, "decisions by pair: " + byPair.classTaken);
    assertTrue(byPair.classKept > 100, "first class found unchanged: " + byPair.classKept);
    assertTrue(
        byPair.sectionsKept() > 1000, "coflows read from their section: " + byPair.sectionsKept());
    assertEquals(0, byFlow.classTaken, "decisions by pair with it off");
    assertEquals(flows.events(), pairs.events(), "events");
    for (int i = 0; i < flows.cct().length; i++) {
      assertEquals(flows.cct()[i], pairs.cct()[i], "coflow " + i + " CCT");
      assertEquals(flows.delivered()[i], pairs.delivered()[i], "coflow " + i + " bytes");
    }
  }

  /**
   * Passing over the steps a policy holds ({@link SchedulingPolicy#passesOverHeld}) gives the run
   * that comparing every served flow's rate gives, bit for bit, with the invariants checked at
   * every event; and many served flows are passed over, and many listed as changed re-anchored.
   * (Baraat holds none: its first class's rates come first and are not said to be one coflow's, so
   * none of its later steps is held.)
   */
  @ParameterizedTest
  @ValueSource(strings = {"aalo", "aalo weighted", "graviton"})
  void passingOverHeldStepsGivesTheSameRunBitForBit(String variant) {
    String name = variant.split(" ")[0];
    Config config = configOf(variant);
    Simulator.Coflows meta =
        Simulator.Coflows.of(first.coflows(), Model.DEFAULT, SimulatorDifferentialTest.GBPS);
    LazyFlowSimulator passing = lazy();
    SimResult passed =
        passing.run(
            Policies.create(name, config),
            meta,
            new InvariantChecker(true),
            ProgressListener.NONE,
            System.nanoTime());
    LazyFlowSimulator comparing = lazy();
    comparing.passOverHeld = false;
    SimResult compared =
        comparing.run(
            Policies.create(name, config), meta, null, ProgressListener.NONE, System.nanoTime());
    assertTrue(passing.passed > 100_000, variant + ": flows passed over: " + passing.passed);
    assertTrue(
        passing.heldChanged > 1000, variant + ": held flows re-anchored: " + passing.heldChanged);
    assertEquals(0, comparing.passed, variant + ": flows passed over with it off");
    assertEquals(compared.events(), passed.events(), "events");
    for (int i = 0; i < compared.cct().length; i++) {
      assertEquals(compared.cct()[i], passed.cct()[i], variant + ": coflow " + i + " CCT");
      assertEquals(
          compared.delivered()[i], passed.delivered()[i], variant + ": coflow " + i + " bytes");
    }
  }

  /** A variant's configuration: "aalo weighted" is Aalo with weighted sharing across queues. */
  private static Config configOf(String variant) {
    return variant.endsWith("weighted")
        ? Config.defaults().with(PolicyConfig.AALO_INTER_QUEUE, "weighted")
        : Config.defaults();
  }

  private static LazyFlowSimulator lazy() {
    return new LazyFlowSimulator(
        first.coflows(),
        first.ports(),
        SimulatorDifferentialTest.GBPS,
        Simulator.DEFAULT_COALESCE,
        Model.DEFAULT);
  }

  /** The policy behind another class, so that {@link Simulator} takes its per-flow loop. */
  private static final class PerFlow extends ForwardingPolicy {
    PerFlow(SchedulingPolicy inner) {
      super(inner);
    }
  }
}
