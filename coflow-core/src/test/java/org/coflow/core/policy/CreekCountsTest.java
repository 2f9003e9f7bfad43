package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToDoubleFunction;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

/**
 * Creek's pair counts, kept from one decision to the next, against filling every level flow by
 * flow: the same decisions bit for bit over a run where levels change (bytes, boosts of starving
 * receivers, the store's snapshots), flows finish, coflows arrive and finish, and, as in the live
 * master, a coflow gains flows after it started and the fabric grows. Over the same script, the
 * sums per (coflow, receiver) of a Creek by groups, kept from one decision to the next, against
 * sums made afresh.
 */
class CreekCountsTest {
  private static final double CAP = 4000;

  /** One run: its state and policy, driven by the same script as the other. */
  private static final class Run {
    final ClusterState state = new ClusterState(Fabric.uniform(6, CAP));
    final Creek creek = new Creek(4, 2_000, 3, 0.05, 0.01);
    final List<Coflow> coflows = new ArrayList<>();

    /** Creek's entry point by groups for a run {@link #byGroups}, else null. */
    final CreekGroups groups;

    Run(boolean keepCounts) {
      this(keepCounts, true, false);
    }

    private Run(boolean keepCounts, boolean keepSums, boolean byGroups) {
      creek.keepCounts(keepCounts);
      creek.keepSums(keepSums);
      groups = byGroups ? creek.groups() : null;
    }

    /** A run by groups, whose sums per (coflow, receiver) are kept or made afresh. */
    static Run byGroups(boolean keepSums) {
      return new Run(true, keepSums, true);
    }

    /**
     * The rates the flows move at after decision {@code s}: their groups' by their keys for a run
     * by groups whose decision left no flow to backfill (as the simulator reads them), else the
     * schedule's.
     */
    IntToDoubleFunction rates(Schedule s) {
      if (groups == null || groups.perFlow()) {
        return s::rate;
      }
      return i -> {
        int dst = state.dstAt(i);
        return groups
            .rates()[groups.key(groups.levelOf(state.coflowAt(i), dst), state.srcAt(i), dst)];
      };
    }
  }

  @Test
  void keptPairCountsDecideWhatFillingFlowByFlowDecides() {
    Run kept = new Run(true);
    Run byFlow = new Run(false);
    int decisions = drive(kept, byFlow);
    assertTrue(kept.state.flows().isEmpty(), "every flow done after " + decisions + " decisions");
    assertTrue(
        kept.creek.fills().counted() > 50,
        "levels filled from the counts: " + kept.creek.fills().counted());
    assertEquals(0, byFlow.creek.fills().counted());
    assertTrue(
        kept.creek.fills().kept() > 50,
        "levels that kept the rates of their last fill: " + kept.creek.fills().kept());
  }

  /**
   * The rates per (coflow, receiver) summed from the pair rates by groups, kept from one decision
   * to the next while their senders, level and pair rates hold: bit for bit the sums made afresh at
   * every decision, over the same script (levels change, flows finish and are added, the fabric
   * grows).
   */
  @Test
  void keptSumsPerReceiverAreTheSumsMadeAfresh() {
    Run kept = Run.byGroups(true);
    Run fresh = Run.byGroups(false);
    int decisions = drive(kept, fresh);
    assertTrue(kept.state.flows().isEmpty(), "every flow done after " + decisions + " decisions");
    assertTrue(kept.creek.sums().kept() > 100, "sums kept: " + kept.creek.sums().kept());
    assertTrue(kept.creek.sums().made() > 100, "sums made: " + kept.creek.sums().made());
    assertEquals(0, fresh.creek.sums().kept(), "sums kept with keeping turned off");
  }

  /**
   * Drives two runs ({@code other} filling flow by flow or making its sums afresh) through the same
   * script, checking at every decision that they give every flow the same rate and class bit for
   * bit, the same next decision time and, for runs by groups, the same rate per (coflow, receiver);
   * returns the number of decisions.
   */
  private static int drive(Run kept, Run other) {
    double now = 0;
    int arrived = 0;
    double nextArrival = 0;
    int decisions = 0;
    while (decisions < 20_000 && (arrived < 12 || !kept.state.flows().isEmpty())) {
      if (arrived < 12 && nextArrival <= now) {
        for (Run run : List.of(kept, other)) {
          admit(run, arrived, now);
        }
        arrived++;
        nextArrival = now + 0.3;
      }
      if (decisions == 300) {
        // The live master: a running coflow gains flows, and the fabric grows under it.
        for (Run run : List.of(kept, other)) {
          FluidScript.growUnder(run.state, run.coflows.get(0), CAP, now);
        }
      }
      if (decisions == 600) {
        // Flows into one receiver of a running coflow: one finishes and one is added between two
        // decisions (the same number of flows into it, not the same flows).
        for (Run run : List.of(kept, other)) {
          Coflow c = run.coflows.get(arrived - 1);
          assertTrue(c.activeCount() > 0, "the last coflow is still running");
          FluidScript.replaceFirstFlow(run.state, c, now);
        }
      }
      Schedule a = kept.creek.schedule(kept.state, now);
      Schedule b = other.creek.schedule(other.state, now);
      decisions++;
      assertEquals(kept.state.flows().size(), other.state.flows().size());
      for (int i = 0; i < kept.state.flows().size(); i++) {
        assertEquals(
            Double.doubleToLongBits(b.rate(i)),
            Double.doubleToLongBits(a.rate(i)),
            "flow " + i + " at decision " + decisions);
        assertEquals(b.priority(i), a.priority(i), "class of flow " + i);
      }
      if (kept.groups != null) {
        for (int j = 0; j < kept.coflows.size(); j++) {
          Coflow x = kept.coflows.get(j);
          Coflow y = other.coflows.get(j);
          for (int rs = 0; x.activeCount() > 0 && rs < x.receiverCount(); rs++) {
            int r = x.receiver(rs);
            assertEquals(
                Double.doubleToLongBits(other.groups.rateTo(y, r)),
                Double.doubleToLongBits(kept.groups.rateTo(x, r)),
                "rate into " + r + " of coflow " + j + " at decision " + decisions);
          }
        }
      }
      double dt = Math.min(nextArrival - now, 0.05);
      if (arrived == 12) {
        dt = 0.05;
      }
      double next = kept.creek.nextDecisionTime(kept.state, a, now);
      assertEquals(
          Double.doubleToLongBits(other.creek.nextDecisionTime(other.state, b, now)),
          Double.doubleToLongBits(next),
          "next decision after decision " + decisions);
      dt = Math.min(dt, Math.max(1e-6, next - now));
      dt = FluidScript.untilFirstDone(kept.state, kept.rates(a), dt);
      FluidScript.advance(kept.state, kept.rates(a), dt, now + dt);
      FluidScript.advance(other.state, other.rates(b), dt, now + dt);
      now += dt;
    }
    return decisions;
  }

  /**
   * A level filled from the counts, then flow by flow with the same counts (a level above took
   * ports its flows use), then finding its counts and budget as at the first fill: by groups, it
   * must give the first fill's rates, not those the fill flow by flow left in its pair rates.
   */
  @Test
  void aLevelFilledFlowByFlowInBetweenDoesNotKeepItsFill() {
    ClusterState state = new ClusterState(Fabric.uniform(3, CAP));
    Creek byFlow = new Creek(2, 1_000, 10, 0, 0);
    Creek grouped = new Creek(2, 1_000, 10, 0, 0);
    CreekGroups groups = grouped.groups();
    Coflow x = new Coflow("x", 0, 0, 1);
    state.addCoflow(x);
    for (int m = 0; m < 3; m++) {
      for (int r = 1; r < 3; r++) {
        state.addFlow(x, m, r, 1_000_000, 0);
      }
    }
    state.addSent(x.activeFlows().get(0), 2_000); // x leaves the first level: 6 flows at level 1
    compare(state, byFlow, grouped, groups, 0);
    Coflow y = new Coflow("y", 1, 0.1, 1);
    state.addCoflow(y);
    Flow blocking = state.addFlow(y, 0, 1, 500, 0.1); // level 0: port 0 out and port 1 in are full
    compare(state, byFlow, grouped, groups, 0.1);
    assertEquals(1, grouped.fills().counted(), "level 1 was filled flow by flow under y");
    state.addSent(blocking, 500);
    state.finishFlow(blocking, 0.2);
    compare(state, byFlow, grouped, groups, 0.2);
    assertEquals(2, grouped.fills().counted(), "filled from the counts afresh");
    assertEquals(0, grouped.fills().kept(), "a fill flow by flow in between: nothing kept");
  }

  /**
   * The counts are dense, ports squared per level: on a fabric too large for them (eight levels:
   * more than 364 ports) Creek fills every level flow by flow, with the same rates. Here a coflow
   * of {@code 2 * ports} flows is filled from the counts on the largest fabric they fit; the fabric
   * then grows by one port, as in the live master, and the counts are dropped. The entry point by
   * groups needs them, so it refuses the larger fabric with a message that says so.
   */
  @Test
  void aFabricTooLargeForTheCountsIsFilledFlowByFlow() {
    assertEquals(774, new Creek(1, 1_000, 10, 0, 0).maxCountedPorts(), "32 MiB at one level");
    Creek kept = new Creek(8, 1_000, 10, 0, 0);
    Creek byFlow = new Creek(8, 1_000, 10, 0, 0);
    byFlow.keepCounts(false);
    int max = kept.maxCountedPorts();
    assertEquals(364, max, "32 MiB at eight levels");
    ClusterState state = new ClusterState(Fabric.uniform(max, CAP));
    Coflow x = FluidScript.ring(state, max);
    sameRates(state, kept, byFlow, 0);
    assertEquals(1, kept.fills().counted(), "filled from the counts on " + max + " ports");
    state.setFabric(Fabric.uniform(max + 1, CAP));
    state.addFlow(x, max, 0, 1_000_000, 0.1);
    state.addFlow(x, max, 1, 1_000_000, 0.1);
    sameRates(state, kept, byFlow, 0.1);
    // A receiver's flows all finish after the counts were dropped: counted before, they must not
    // be taken out of counts that no longer exist.
    int receiver = x.activeFlows().get(0).dst();
    for (Flow f : List.copyOf(x.activeFlows())) {
      if (f.dst() == receiver) {
        state.addSent(f, f.remaining());
        state.finishFlow(f, 0.2);
      }
    }
    assertEquals(0, x.activeFlowsTo(receiver));
    sameRates(state, kept, byFlow, 0.2);
    assertEquals(1, kept.fills().counted(), "no fill from the counts on " + (max + 1) + " ports");

    Creek grouped = new Creek(8, 1_000, 10, 0, 0);
    grouped.groups();
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> grouped.schedule(state, 0.3));
    assertTrue(
        refused.getMessage().contains("up to 364 ports; this one has 365"), refused.getMessage());
  }

  private static void sameRates(ClusterState state, Creek kept, Creek byFlow, double now) {
    FluidScript.assertSameRates(state, kept.schedule(state, now), byFlow.schedule(state, now));
  }

  private static void compare(
      ClusterState state, Creek byFlow, Creek grouped, CreekGroups groups, double now) {
    Schedule a = byFlow.schedule(state, now);
    grouped.schedule(state, now);
    int ports = state.fabric().size();
    for (Flow f : state.flows()) {
      int level = groups.levelOf(f.coflow(), f.dst());
      assertEquals(
          Double.doubleToLongBits(a.rate(f.index())),
          Double.doubleToLongBits(groups.rate(level, f.src(), f.dst())),
          f + " at level " + level + " at t=" + now);
      // The same rate by the group's key, as the simulator reads it.
      int key = groups.key(level, f.src(), f.dst());
      assertEquals(level * ports * ports + f.src() * ports + f.dst(), key, "the key of " + f);
      assertEquals(
          Double.doubleToLongBits(a.rate(f.index())),
          Double.doubleToLongBits(groups.rates()[key]),
          f + " by key " + key + " at t=" + now);
    }
  }

  private static void admit(Run run, int n, double now) {
    run.coflows.add(FluidScript.admit(run.state, n, now, 8_000));
  }
}
