package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.policy.Schedule;
import org.junit.jupiter.api.Test;

/**
 * {@link FluidStep#next}, which divides only for flows that may finish within the window of the
 * earliest completion, against the definition: every served flow's bytes left over its rate, the
 * earliest of those times, and the last one within {@code (1 + coalesce)} of it, never past the
 * next arrival or decision.
 */
class FluidStepTest {

  @Test
  void eventLengthIsThatOfDividingForEveryFlow() {
    Random random = new Random(23);
    FluidStep step = new FluidStep();
    int nearEdge = 0;
    for (int trial = 0; trial < 3000; trial++) {
      double coalesce = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 1e-3 : 0.25;
      ClusterState state = new ClusterState(Fabric.uniform(8, 1e9));
      Coflow c = new Coflow("c" + trial, trial, 0, 1);
      state.addCoflow(c);
      int n = 1 + random.nextInt(60);
      double first = 0.5 + random.nextDouble();
      for (int k = 0; k < n; k++) {
        state.addFlow(c, k % 8, (k % 8 + 1 + (k / 8) % 7) % 8, 4e9, 0);
      }
      Schedule schedule = Schedule.empty(state);
      for (int i = 0; i < n; i++) {
        double rate = 1e6 * (1 + random.nextInt(1000)) * (1 + random.nextDouble());
        // Times to finish clustered at the window's end, a few ulps either side, and spread out.
        double t;
        switch (random.nextInt(4)) {
          case 0 -> t = first;
          case 1 -> {
            double end = first * (1 + coalesce);
            t = end + (random.nextInt(9) - 4) * Math.ulp(end);
            nearEdge++;
          }
          case 2 -> t = first * (1 + random.nextDouble() * 2 * coalesce);
          default -> t = first * (1 + random.nextDouble() * 10);
        }
        double left = Math.min(4e9, Math.max(1, t * rate));
        state.addSentAt(i, 4e9 - left);
        schedule.setRate(i, rate);
      }
      double dt =
          random.nextBoolean() ? Double.POSITIVE_INFINITY : first * (1 + random.nextDouble());
      assertEquals(
          byDefinition(state, schedule, dt, coalesce),
          step.next(state, schedule, dt, coalesce),
          0.0,
          "trial " + trial);
    }
    assertTrue(nearEdge > 5000, "times at the window's end were tried: " + nearEdge);
  }

  /**
   * Times to finish below the smallest normal double, where a relative margin rounds away: a flow
   * whose quotient rounds down onto the window's end while its bytes left exceed the rounded
   * product of that end and its rate must still extend the event.
   */
  @Test
  void subnormalTimesMatchTheDefinition() {
    ClusterState state = new ClusterState(Fabric.uniform(4, 1e9));
    Coflow c = new Coflow("tiny", 0, 0, 1);
    state.addCoflow(c);
    state.addFlow(c, 0, 1, 4 * Double.MIN_VALUE, 0);
    state.addFlow(c, 2, 3, 0x1.5p-72, 0);
    Schedule schedule = Schedule.empty(state);
    schedule.setRate(0, 1.0);
    schedule.setRate(1, 0x1p1000);
    double expected = byDefinition(state, schedule, Double.POSITIVE_INFINITY, 0.25);
    assertEquals(5 * Double.MIN_VALUE, expected, 0.0);
    assertEquals(expected, new FluidStep().next(state, schedule, Double.POSITIVE_INFINITY, 0.25));
  }

  /**
   * The scan that also sums the rates per coflow hands the schedule exactly the sums {@link
   * Schedule#coflowRates} computes (bit for bit, so policies decide the same), with the coflows'
   * flows interleaved and reshuffled by completions so that their runs in index order break up, and
   * gives the event length {@link FluidStep#next} gives.
   */
  @Test
  void summingScanGivesTheScheduleItsOwnCoflowSums() {
    Random random = new Random(29);
    FluidStep step = new FluidStep();
    for (int trial = 0; trial < 300; trial++) {
      ClusterState state = new ClusterState(Fabric.uniform(8, 1e9));
      int coflows = 1 + random.nextInt(6);
      Coflow[] cs = new Coflow[coflows];
      for (int j = 0; j < coflows; j++) {
        cs[j] = new Coflow("c" + j, j, 0, 1);
        state.addCoflow(cs[j]);
      }
      int n = 1 + random.nextInt(80);
      java.util.List<org.coflow.core.model.Flow> flows = new java.util.ArrayList<>();
      for (int k = 0; k < n; k++) {
        Coflow c = cs[random.nextInt(coflows)];
        flows.add(state.addFlow(c, random.nextInt(8), random.nextInt(8), 1e6 + k, 0));
      }
      for (int k = 0; k < n / 4; k++) {
        org.coflow.core.model.Flow f = flows.remove(random.nextInt(flows.size()));
        state.addSent(f, f.size());
        state.finishFlow(f, 1);
      }
      Schedule summed = Schedule.empty(state);
      Schedule plain = Schedule.empty(state);
      for (int i = 0; i < state.flows().size(); i++) {
        if (random.nextInt(5) > 0) {
          // Rates of very different magnitudes, so that adding them in another order rounds
          // differently.
          double rate = Math.scalb(1 + random.nextDouble(), random.nextInt(60));
          summed.setRate(i, rate);
          plain.setRate(i, rate);
        }
      }
      double coalesce = trial % 2 == 0 ? 0 : 1e-3;
      step.scan(state, summed, coalesce, true);
      assertTrue(summed.coflowRatesKnown(), "trial " + trial);
      double length = step.until(Double.POSITIVE_INFINITY, coalesce);
      assertEquals(
          step.next(state, plain, Double.POSITIVE_INFINITY, coalesce), length, 0.0, "" + trial);
      assertTrue(!plain.coflowRatesKnown(), "a plain scan leaves the sums to the schedule");
      double[] expected = plain.coflowRates(state);
      double[] got = summed.coflowRates(state);
      assertEquals(expected.length, got.length);
      for (int j = 0; j < expected.length; j++) {
        assertEquals(
            Double.doubleToRawLongBits(expected[j]),
            Double.doubleToRawLongBits(got[j]),
            "trial " + trial + ", coflow " + j + ": " + expected[j] + " vs " + got[j]);
      }
    }
  }

  private static double byDefinition(
      ClusterState state, Schedule schedule, double dt, double coalesce) {
    double first = Double.POSITIVE_INFINITY;
    int[] served = schedule.served();
    for (int k = 0; k < schedule.servedSize(); k++) {
      int i = served[k];
      first = Math.min(first, state.remainingAt(i) / schedule.rate(i));
    }
    if (first > dt) {
      return dt;
    }
    double limit = Math.min(dt, first * (1 + coalesce));
    double last = first;
    for (int k = 0; k < schedule.servedSize(); k++) {
      int i = served[k];
      double t = state.remainingAt(i) / schedule.rate(i);
      if (t <= limit) {
        last = Math.max(last, t);
      }
    }
    return last;
  }
}
