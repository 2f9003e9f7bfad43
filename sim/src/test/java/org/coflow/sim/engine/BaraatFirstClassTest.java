package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.policy.Baraat;
import org.coflow.core.policy.ForwardingPolicy;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.Schedule;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.Test;

/**
 * Baraat's two entry points agree: at every decision of a per-flow run on the first 200 coflows, a
 * twin Baraat deciding its first class by pair ({@link Baraat#firstClass}) on the same state gives
 * every active flow bit for bit the rate the per-flow schedule gives it: a flow of the first class
 * through its pair's rate (and no rate in the twin's schedule), any other flow through the twin's
 * schedule. The run goes through decisions that fill the class from the pair counts afresh, that
 * keep the rates of the last fill, and that fill it flow by flow.
 */
class BaraatFirstClassTest {

  @Test
  void pairRatesAreThePerFlowRatesAtEveryDecision() throws Exception {
    Trace first =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(200);
    Twins twins = new Twins();
    new Simulator(first, SimulatorDifferentialTest.GBPS, Simulator.DEFAULT_COALESCE)
        .run(twins, false, null, ProgressListener.NONE);
    assertTrue(twins.decisions > 3000, "decisions: " + twins.decisions);
    assertTrue(twins.byPair > 2000, "decisions by pair: " + twins.byPair);
    assertTrue(twins.kept > 100, "decisions that kept the last fill: " + twins.kept);
    assertTrue(twins.flowByFlow > 100, "decisions flow by flow: " + twins.flowByFlow);
    assertTrue(twins.comparedByPair > 10_000_000, "flows compared: " + twins.comparedByPair);
  }

  /** Baraat deciding flow by flow, checked at every decision against a twin deciding by pair. */
  private static final class Twins extends ForwardingPolicy {
    final Baraat twin = (Baraat) Policies.create("baraat", Config.defaults());
    private final Baraat.FirstClass first = twin.firstClass();
    private Schedule twinSchedule;
    private long lastFills = -1;
    long decisions;
    long byPair;
    long kept;
    long flowByFlow;
    long comparedByPair;

    Twins() {
      super(Policies.create("baraat", Config.defaults()));
    }

    @Override
    public Schedule schedule(ClusterState state, double now) {
      Schedule schedule = super.schedule(state, now);
      if (twinSchedule != null) {
        twin.recycle(twinSchedule);
      }
      twinSchedule = twin.schedule(state, now);
      decisions++;
      int size = first.coflows();
      if (size == 0) {
        flowByFlow++;
      } else if (first.fills() == lastFills) {
        kept++;
      } else {
        byPair++;
        lastFills = first.fills();
      }
      int ports = state.fabric().size();
      for (int i = 0, n = state.flows().size(); i < n; i++) {
        Coflow c = state.coflowAt(i);
        double twinRate = twinSchedule.rate(i);
        if (c.index() < size) {
          assertEquals(0, twinRate, "t=" + now + ": a flow of the class by pair in the schedule");
          twinRate = first.rates()[state.srcAt(i) * ports + state.dstAt(i)];
          comparedByPair++;
        }
        if (Double.doubleToLongBits(twinRate) != Double.doubleToLongBits(schedule.rate(i))) {
          throw new AssertionError(
              "t="
                  + now
                  + " flow "
                  + state.flows().get(i)
                  + (c.index() < size ? " of the first class" : "")
                  + ": rate "
                  + schedule.rate(i)
                  + " flow by flow, "
                  + twinRate
                  + " by pair");
        }
      }
      return schedule;
    }
  }
}
