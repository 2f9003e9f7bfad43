package org.coflow.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.api.config.Config;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.bench.trace.Trace;
import org.coflow.bench.trace.TraceParser;
import org.coflow.master.policy.Creek;
import org.coflow.master.policy.ForwardingPolicy;
import org.coflow.master.policy.Policies;
import org.coflow.master.policy.Schedule;
import org.junit.jupiter.api.Test;

/**
 * Creek's two entry points agree: at every decision of a per-flow run on the first 150 coflows, a
 * twin Creek deciding by groups ({@link Creek#groups}) on the same state gives every active flow,
 * through its (level, sender, receiver) group, bit for bit the rate the per-flow schedule gives it,
 * and the same next decision time up to the order its rates are summed in. The run goes through
 * levels filled from the pair counts and levels filled flow by flow.
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
    assertTrue(twins.largeLevels > 0, "no decision had a level of 2 x ports flows or more");
    assertTrue(twins.smallLevels > 0, "no decision had a level of fewer flows");
  }

  /** Creek deciding flow by flow, checked at every decision against a twin deciding by groups. */
  private static final class Twins extends ForwardingPolicy {
    private final Creek twin = creek();
    private final Creek.Groups groups = twin.groups();
    private Schedule twinSchedule;
    long decisions;
    long flowsCompared;
    long largeLevels;
    long smallLevels;

    Twins() {
      super(creek());
    }

    private static Creek creek() {
      return (Creek) Policies.create("creek", Config.defaults());
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
      int ports = state.fabric().size();
      int[] perLevel = new int[Creek.MAX_LEVELS];
      for (int i = 0, n = state.flows().size(); i < n; i++) {
        Coflow c = state.coflowAt(i);
        int level = groups.levelOf(c, state.dstAt(i));
        perLevel[level]++;
        double byGroup = groups.rate(level, state.srcAt(i), state.dstAt(i));
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
      for (int count : perLevel) {
        if (count >= 2 * ports) {
          largeLevels++;
        } else if (count > 0) {
          smallLevels++;
        }
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
