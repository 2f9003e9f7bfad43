package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Schedule;
import org.junit.jupiter.api.Test;

/** The checker the invariant tests rely on must catch what it claims to catch. */
class InvariantCheckerTest {
  final ClusterState state = new ClusterState(Fabric.uniform(2, 10));
  final Flow flow;

  InvariantCheckerTest() {
    Coflow c = new Coflow("c", 0, 0, 1);
    state.addCoflow(c);
    flow = state.addFlow(c, 0, 1, 100, 0);
  }

  @Test
  void idleFlowWithSpareCapacityIsNotWorkConserving() {
    Schedule s = Schedule.empty(state);
    s.appendCoflow(flow.coflow(), 0);
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> new InvariantChecker(true).check(state, s, 0, "t"));
    assertTrue(e.getMessage().contains("not work-conserving"), e.getMessage());
    new InvariantChecker(false).check(state, s, 0, "t"); // exempt (Courier)
  }

  @Test
  void rateAboveCapacityIsCaught() {
    Schedule s = Schedule.empty(state);
    s.appendCoflow(flow.coflow(), 0);
    s.setRate(flow.index(), 11);
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> new InvariantChecker(true).check(state, s, 0, "t"));
    assertTrue(e.getMessage().contains("uplink of port 0"), e.getMessage());
  }

  @Test
  void fullRateIsFine() {
    Schedule s = Schedule.empty(state);
    s.appendCoflow(flow.coflow(), 0);
    s.setRate(flow.index(), 10);
    new InvariantChecker(true).check(state, s, 0, "t");
  }

  /** The same checks on the rates a simulator moves its flows at, by dense index. */
  @Test
  void movingRatesOverCapacityIdleOrNotANumberAreCaught() {
    InvariantChecker checker = new InvariantChecker(true);
    checker.checkRates(state, new double[] {10}, 0, "t");
    AssertionError over =
        assertThrows(
            AssertionError.class, () -> checker.checkRates(state, new double[] {11}, 0, "t"));
    assertTrue(over.getMessage().contains("uplink of port 0"), over.getMessage());
    AssertionError idle =
        assertThrows(
            AssertionError.class, () -> checker.checkRates(state, new double[] {0}, 0, "t"));
    assertTrue(idle.getMessage().contains("not work-conserving"), idle.getMessage());
    AssertionError nan =
        assertThrows(
            AssertionError.class,
            () -> checker.checkRates(state, new double[] {Double.NaN}, 0, "t"));
    assertTrue(nan.getMessage().contains("rate NaN"), nan.getMessage());
  }

  @Test
  void pairsOverCapacityOrIdleWithSpareCapacityAreCaught() {
    // Two flows on pair 0->1 of a two-port fabric of 10 B/s per link.
    Fabric fabric = Fabric.uniform(2, 10);
    int[] src = {0};
    int[] dst = {1};
    int[] count = {2};
    AssertionError over =
        assertThrows(
            AssertionError.class,
            () ->
                new InvariantChecker(true)
                    .checkPairs(fabric, src, dst, count, new double[] {6}, 1, 0, "t"));
    assertTrue(over.getMessage().contains("uplink of port 0 at 12.0"), over.getMessage());
    AssertionError idle =
        assertThrows(
            AssertionError.class,
            () ->
                new InvariantChecker(true)
                    .checkPairs(fabric, src, dst, count, new double[] {4}, 1, 0, "t"));
    assertTrue(idle.getMessage().contains("2 flow(s) from port 0 to port 1"), idle.getMessage());
    new InvariantChecker(true).checkPairs(fabric, src, dst, count, new double[] {5}, 1, 0, "t");
  }
}
