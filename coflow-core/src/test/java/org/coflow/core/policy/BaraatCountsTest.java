package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.junit.jupiter.api.Test;

/**
 * Baraat's first class filled from pair counts kept from one decision to the next, against offering
 * its flows one by one: the same decisions bit for bit over a run where chains of heavy coflows
 * grow and shrink (the threshold is learnt from the coflows that complete), flows finish, coflows
 * arrive and finish, and, as in the live master, a coflow gains flows after it started and the
 * fabric grows.
 */
class BaraatCountsTest {
  private static final double CAP = 40_000;

  /** One run: its state and policy, driven by the same script as the other. */
  private static final class Run {
    final ClusterState state = new ClusterState(Fabric.uniform(6, CAP));
    final Baraat baraat = new Baraat(0.5, 3, 3_000);
    final List<Coflow> coflows = new ArrayList<>();

    Run(boolean keepCounts) {
      baraat.keepCounts(keepCounts);
    }
  }

  @Test
  void keptPairCountsDecideWhatOfferingFlowByFlowDecides() {
    Run kept = new Run(true);
    Run byFlow = new Run(false);
    double now = 0;
    int arrived = 0;
    double nextArrival = 0;
    int decisions = 0;
    boolean halved = false;
    double firstThreshold = kept.baraat.threshold();
    while (decisions < 20_000 && (arrived < 16 || !kept.state.flows().isEmpty())) {
      if (arrived < 16 && nextArrival <= now) {
        for (Run run : List.of(kept, byFlow)) {
          run.coflows.add(FluidScript.admit(run.state, arrived, now, 8_000));
        }
        arrived++;
        nextArrival = now + 0.4;
      }
      if (decisions == 40) {
        // The live master: a running coflow gains flows, and the fabric grows under it.
        for (Run run : List.of(kept, byFlow)) {
          FluidScript.growUnder(run.state, run.state.coflows().get(0), CAP, now);
        }
      }
      if (decisions == 80) {
        // Flows into one receiver of a running coflow: one finishes and one is added between two
        // decisions (the same number of flows into it, not the same flows).
        for (Run run : List.of(kept, byFlow)) {
          Coflow c = run.coflows.get(arrived - 1);
          assertTrue(c.activeCount() > 0, "the last coflow is still running");
          FluidScript.replaceFirstFlow(run.state, c, now);
        }
      }
      long fills = kept.baraat.fills().counted() + kept.baraat.fills().kept();
      Schedule a = kept.baraat.schedule(kept.state, now);
      Schedule b = byFlow.baraat.schedule(byFlow.state, now);
      decisions++;
      assertEquals(kept.state.flows().size(), byFlow.state.flows().size());
      assertArrayEquals(
          Arrays.copyOf(b.served(), b.servedSize()),
          Arrays.copyOf(a.served(), a.servedSize()),
          "flows served, in the order their rates were handed out, at decision " + decisions);
      for (int i = 0; i < kept.state.flows().size(); i++) {
        assertEquals(
            Double.doubleToLongBits(b.rate(i)),
            Double.doubleToLongBits(a.rate(i)),
            "flow " + i + " at decision " + decisions);
        assertEquals(b.priority(i), a.priority(i), "class of flow " + i);
      }
      if (!halved
          && decisions > 100
          && kept.baraat.fills().counted() + kept.baraat.fills().kept() > fills) {
        // The live master: the hosts' capacity changes (the fabric keeps its size) before any flow
        // moves, so the next decision finds the first class's counts as at its last fill, with
        // another budget.
        for (Run run : List.of(kept, byFlow)) {
          run.state.setFabric(Fabric.uniform(8, CAP / 2));
        }
        halved = true;
        continue;
      }
      double next = kept.baraat.nextDecisionTime(kept.state, a, now);
      assertEquals(
          Double.doubleToLongBits(byFlow.baraat.nextDecisionTime(byFlow.state, b, now)),
          Double.doubleToLongBits(next),
          "next decision after decision " + decisions);
      double dt = arrived < 16 ? Math.min(nextArrival - now, 0.05) : 0.05;
      dt = Math.min(dt, Math.max(1e-6, next - now));
      dt = FluidScript.untilFirstDone(kept.state, a, dt);
      FluidScript.advance(kept.state, a, dt, now + dt);
      FluidScript.advance(byFlow.state, b, dt, now + dt);
      now += dt;
    }
    assertTrue(kept.state.flows().isEmpty(), "every flow done after " + decisions + " decisions");
    assertTrue(
        kept.baraat.fills().counted() > 20,
        "first classes filled from the counts: " + kept.baraat.fills().counted());
    assertTrue(
        kept.baraat.fills().kept() > 20,
        "first classes that kept the rates of their last fill: " + kept.baraat.fills().kept());
    assertEquals(0, byFlow.baraat.fills().counted() + byFlow.baraat.fills().kept());
    assertTrue(halved, "the capacity changed under a first class filled from the counts");
    assertTrue(
        kept.baraat.threshold() != firstThreshold,
        "the heavy threshold was learnt from completed coflows: " + kept.baraat.threshold());
  }

  /**
   * The counts are dense, ports squared: the first class is counted on fabrics of up to 774 ports
   * (32 MiB) and offered flow by flow on larger ones, with the same rates.
   */
  @Test
  void aFabricTooLargeForTheCountsIsOfferedFlowByFlow() {
    for (int ports : new int[] {774, 775}) {
      ClusterState state = new ClusterState(Fabric.uniform(ports, CAP));
      Baraat kept = new Baraat(0.5, 3, 3_000);
      Baraat byFlow = new Baraat(0.5, 3, 3_000);
      byFlow.keepCounts(false);
      FluidScript.ring(state, ports);
      FluidScript.assertSameRates(state, kept.schedule(state, 0), byFlow.schedule(state, 0));
      assertEquals(ports <= 774 ? 1 : 0, kept.fills().counted(), "fills from counts, " + ports);
    }
  }

  /** The entry point by pair rests on the kept counts: without them it is refused. */
  @Test
  void theEntryPointByPairNeedsTheKeptCounts() {
    Baraat kept = new Baraat(0.5, 3, 3_000);
    assertEquals(0, kept.firstClass().coflows(), "no decision yet, no class by pair");
    Baraat byFlow = new Baraat(0.5, 3, 3_000);
    byFlow.keepCounts(false);
    IllegalStateException e = assertThrows(IllegalStateException.class, byFlow::firstClass);
    assertTrue(e.getMessage().contains("kept pair counts"), e.getMessage());
  }
}
