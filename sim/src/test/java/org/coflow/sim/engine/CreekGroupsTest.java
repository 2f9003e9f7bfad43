package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.policy.Creek;
import org.coflow.core.policy.CreekGroups;
import org.coflow.core.policy.ForwardingPolicy;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.Schedule;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.Test;

/**
 * Creek's two entry points agree: at every decision of a per-flow run on the first 150 coflows, a
 * twin Creek deciding by groups ({@link Creek#groups}) on the same state gives every active flow,
 * through its (level, sender, receiver) group, bit for bit the rate the per-flow schedule gives it,
 * and the same next decision time up to the order its rates are summed in. The run goes through
 * levels filled from the pair counts, levels that keep their last such fill, and levels filled flow
 * by flow. And the group engine gives the per-flow loop's completion times.
 */
class CreekGroupsTest {

  @Test
  void groupRatesAreThePerFlowRatesAtEveryDecision() throws Exception {
    Trace first =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(150);
    Twins twins = new Twins();
    new Simulator(first, SimulatorDifferentialTest.GBPS, Simulator.DEFAULT_COALESCE)
        .run(twins, false, null, ProgressListener.NONE);
    assertTrue(twins.decisions > 1000, "decisions: " + twins.decisions);
    assertTrue(twins.flowsCompared > 1_000_000, "flows compared: " + twins.flowsCompared);
    Creek twin = twins.twin;
    assertTrue(
        twin.fills().counted() > 100, "levels filled from the counts: " + twin.fills().counted());
    assertTrue(twin.fills().kept() > 100, "levels that kept their fill: " + twin.fills().kept());
    assertTrue(twin.fills().byFlow() > 100, "levels filled flow by flow: " + twin.fills().byFlow());
  }

  /**
   * The group engine against the per-flow loop running Creek's per-flow schedule, at the default
   * completion window, on the first 200 coflows: the same CCT for every coflow (relative difference
   * at most 1e-9) and the same events up to the few that rounding moves across the window's edge.
   */
  @Test
  void theGroupEngineGivesThePerFlowLoopsCompletionTimes() throws Exception {
    Trace first =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(200);
    Simulator simulator =
        new Simulator(first, SimulatorDifferentialTest.GBPS, Simulator.DEFAULT_COALESCE);
    Creek grouped = creek();
    SimResult groups = simulator.run(grouped, false, null, ProgressListener.NONE);
    SimResult flows = simulator.run(new PerFlow(), false, null, ProgressListener.NONE);
    assertTrue(grouped.fills().counted() > 0, "the run went through the group engine");
    assertEquals(flows.events(), groups.events(), 3, "events");
    for (int i = 0; i < flows.cct().length; i++) {
      double rel = Math.abs(groups.cct()[i] - flows.cct()[i]) / flows.cct()[i];
      assertTrue(
          rel <= 1e-9,
          "coflow "
              + i
              + ": "
              + groups.cct()[i]
              + " s by groups, "
              + flows.cct()[i]
              + " s by flows");
    }
  }

  /**
   * On a fabric too large for Creek's pair counts (more than 364 ports at eight levels) the group
   * engine cannot run: the simulator takes the per-flow loop, whose completion times are those of
   * Creek behind another class, and no level is filled from counts.
   */
  @Test
  void aFabricTooLargeForThePairCountsTakesThePerFlowLoop() throws Exception {
    Trace first =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(30);
    Creek creek = creek();
    Trace wide = new Trace(first.source(), creek.maxCountedPorts() + 1, first.coflows());
    Simulator simulator = new Simulator(wide, SimulatorDifferentialTest.GBPS, 0);
    SimResult direct = simulator.run(creek, false, null, ProgressListener.NONE);
    SimResult perFlow = simulator.run(new PerFlow(), false, null, ProgressListener.NONE);
    assertEquals(0, creek.fills().counted(), "levels filled from the counts");
    assertTrue(
        creek.fills().byFlow() > 100, "levels filled flow by flow: " + creek.fills().byFlow());
    assertEquals(perFlow.events(), direct.events(), "events");
    for (int i = 0; i < perFlow.cct().length; i++) {
      assertEquals(perFlow.cct()[i], direct.cct()[i], "coflow " + i);
    }
  }

  /** Creek behind another class, so that {@link Simulator} takes its per-flow loop. */
  private static final class PerFlow extends ForwardingPolicy {
    PerFlow() {
      super(creek());
    }
  }

  private static Creek creek() {
    return (Creek) Policies.create("creek", Config.defaults());
  }

  /** Creek deciding flow by flow, checked at every decision against a twin deciding by groups. */
  private static final class Twins extends ForwardingPolicy {
    final Creek twin = creek();
    private final CreekGroups groups = twin.groups();
    private Schedule twinSchedule;
    long decisions;
    long flowsCompared;

    Twins() {
      super(creek());
    }

    @Override
    public Schedule schedule(ClusterState state, double now) {
      Schedule schedule = super.schedule(state, now);
      if (twinSchedule != null) {
        twin.recycle(twinSchedule);
      }
      twinSchedule = twin.schedule(state, now);
      assertFalse(groups.perFlow(), "a backfill at t=" + now);
      decisions++;
      for (int i = 0, n = state.flows().size(); i < n; i++) {
        Coflow c = state.coflowAt(i);
        int level = groups.levelOf(c, state.dstAt(i));
        // Read as the simulator reads it: by the group's key.
        double byGroup = groups.rates()[groups.key(level, state.srcAt(i), state.dstAt(i))];
        if (Double.doubleToLongBits(byGroup) != Double.doubleToLongBits(schedule.rate(i))) {
          throw new AssertionError(
              "t="
                  + now
                  + " flow "
                  + state.flows().get(i)
                  + " at level "
                  + level
                  + ": rate "
                  + schedule.rate(i)
                  + " flow by flow, "
                  + byGroup
                  + " by group");
        }
        flowsCompared++;
      }
      return schedule;
    }

    @Override
    public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
      double next = super.nextDecisionTime(state, schedule, now);
      double byGroups = twin.nextDecisionTime(state, twinSchedule, now);
      if (next == Double.POSITIVE_INFINITY) {
        assertEquals(next, byGroups, "t=" + now);
      } else {
        assertEquals(next, byGroups, 1e-9 * Math.max(1, next - now), "t=" + now);
      }
      return next;
    }
  }
}
