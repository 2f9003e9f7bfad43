package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

/**
 * CODA's intra-coflow flow levels kept from one decision to the next in a fluid replay ({@link
 * SchedulingPolicy#movesAsDecided}) against working them out at every decision: the same rates and
 * classes bit for bit, and the same next decision times, over a run where flows pass their levels'
 * thresholds at many different times, coflows are split across levels, flows finish and coflows
 * arrive and finish.
 */
class CodaKeptLevelsTest {
  private static final double CAP = 4000;

  /** One run: its state and policy, driven by the same script as the other. */
  private static final class Run {
    final ClusterState state = new ClusterState(Fabric.uniform(6, CAP));
    final Coda coda = new Coda(4, 20_000, 4, 0.1, 4, 1_000, 3, 0);

    Run(boolean keepLevels) {
      if (keepLevels) {
        coda.movesAsDecided();
      }
    }
  }

  @Test
  void keptLevelsDecideWhatWorkingThemOutDecides() {
    Run kept = new Run(true);
    Run fresh = new Run(false);
    double now = 0;
    int arrived = 0;
    double nextArrival = 0;
    int decisions = 0;
    int splitDecisions = 0;
    while (decisions < 20_000 && (arrived < 14 || !kept.state.flows().isEmpty())) {
      if (arrived < 14 && nextArrival <= now) {
        for (Run run : List.of(kept, fresh)) {
          FluidScript.admit(run.state, arrived, now, 20_000);
        }
        arrived++;
        nextArrival = now + 0.4;
      }
      Schedule a = kept.coda.schedule(kept.state, now);
      Schedule b = fresh.coda.schedule(fresh.state, now);
      decisions++;
      assertEquals(kept.state.flows().size(), fresh.state.flows().size());
      boolean split = false;
      for (int i = 0; i < kept.state.flows().size(); i++) {
        assertEquals(
            Double.doubleToLongBits(b.rate(i)),
            Double.doubleToLongBits(a.rate(i)),
            "flow " + i + " at decision " + decisions);
        assertEquals(b.priority(i), a.priority(i), "class of flow " + i);
        Flow f = kept.state.flows().get(i);
        Flow first = f.coflow().activeFlows().get(0);
        split |= a.priority(first.index()) != a.priority(i);
      }
      if (split) {
        splitDecisions++;
      }
      double next = kept.coda.nextDecisionTime(kept.state, a, now);
      assertEquals(
          Double.doubleToLongBits(fresh.coda.nextDecisionTime(fresh.state, b, now)),
          Double.doubleToLongBits(next),
          "next decision after decision " + decisions);
      double dt = arrived < 14 ? nextArrival - now : Double.POSITIVE_INFINITY;
      dt = Math.min(dt, Math.max(1e-6, next - now));
      dt = FluidScript.untilFirstDone(kept.state, a, dt);
      FluidScript.advance(kept.state, a, dt, now + dt);
      FluidScript.advance(fresh.state, b, dt, now + dt);
      now += dt;
    }
    assertTrue(kept.state.flows().isEmpty(), "every flow done after " + decisions + " decisions");
    assertTrue(
        splitDecisions > 50, "decisions with a coflow split across levels: " + splitDecisions);
    assertTrue(
        kept.coda.keptLevels() > decisions,
        "coflows whose levels were kept: " + kept.coda.keptLevels() + " in " + decisions);
    assertEquals(0, fresh.coda.keptLevels());
  }
}
