package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WaterFillingRiseTest {
  /** Rounds where the last round's smallest share still held, and where a saturation moved it. */
  private long held;

  private long moved;

  /** Saturations that left one of their resource's flows rising. */
  private long undrained;

  @Test
  void theRiseIsTheTextbookRiseBitForBit() {
    // Random flows between uplinks and downlinks on random residuals (some tied, some zero): the
    // rise, which takes a round's smallest share from the last round's lowering pass when the
    // saturations in between left that resource's count alone, saturates the same resources at
    // the same levels, in the same order, and leaves the same residuals as a rise that divides
    // for every resource in every round.
    Random random = new Random(23);
    for (int round = 0; round < 2000; round++) {
      int ports = 2 + random.nextInt(12);
      int n = 1 + random.nextInt(round % 5 == 0 ? 300 : 40);
      int[] up = new int[n];
      int[] down = new int[n];
      for (int i = 0; i < n; i++) {
        up[i] = random.nextInt(ports);
        down[i] = ports + random.nextInt(ports);
      }
      double tie = 1 + random.nextInt(999) + random.nextDouble();
      double[] residual = new double[2 * ports];
      boolean ties = round % 2 == 1;
      for (int r = 0; r < residual.length; r++) {
        int kind = random.nextInt(6);
        residual[r] =
            kind == 0 ? 0 : ties || kind == 1 ? tie : 1 + random.nextInt(999) + random.nextDouble();
      }
      // The resources listed in a random order, now and then not all of them; every third set's
      // first saturation of a resource leaves one of its flows rising.
      int[] order = new int[2 * ports];
      for (int r = 0; r < order.length; r++) {
        int j = random.nextInt(r + 1);
        order[r] = order[j];
        order[j] = r;
      }
      int alive = random.nextInt(4) == 0 ? 1 + random.nextInt(order.length) : order.length;
      boolean partial = round % 3 == 2;
      Run fast = new Run(up, down, residual, order, alive, partial);
      Run textbook = new Run(up, down, residual, order, alive, partial);
      WaterFilling.rise(
          fast.order, alive, fast.count, fast.residual, new int[2 * ports], fast::freeze);
      textbook.rise();
      undrained += textbook.undrainedHere;
      assertEquals(textbook.events, fast.events, "saturations, round " + round);
      assertArrayEquals(textbook.residual, fast.residual, "residuals, round " + round);
      assertArrayEquals(textbook.count, fast.count, "counts, round " + round);
    }
    // Both ways of finding a round's smallest share were taken many times.
    assertTrue(held > 1000, "rounds whose smallest share held: " + held);
    assertTrue(moved > 1000, "rounds whose smallest share a saturation moved: " + moved);
    assertTrue(undrained > 100, "saturations that left a flow rising: " + undrained);
  }

  @Test
  void aTieInTheLastRoundsLoweringGoesToTheFirstResourceListed() {
    // Uplinks 0 and 1 have 49 flows each and a residual of 1 (a share that times 49 rounds to
    // just under 1); uplink 2 starts saturated, so the second round takes its smallest share from
    // the first round's lowering. The resource the share goes to gets a residual of exactly 0,
    // the other what 49 shares leave of 1: the first listed, as a scan would pick it.
    int ports = 50;
    int n = 2 * 49 + 1;
    int[] up = new int[n];
    int[] down = new int[n];
    for (int k = 0; k < 49; k++) {
      up[k] = 0;
      up[49 + k] = 1;
      down[k] = ports + k;
      down[49 + k] = ports + k;
    }
    up[n - 1] = 2;
    down[n - 1] = ports + 49;
    double[] residual = new double[2 * ports];
    Arrays.fill(residual, 1000);
    residual[0] = 1;
    residual[1] = 1;
    residual[2] = 0;
    int[] order = new int[2 * ports];
    for (int r = 0; r < order.length; r++) {
      order[r] = r;
    }
    Run fast = new Run(up, down, residual, order, order.length, false);
    Run textbook = new Run(up, down, residual, order, order.length, false);
    WaterFilling.rise(
        fast.order, order.length, fast.count, fast.residual, new int[2 * ports], fast::freeze);
    textbook.rise();
    assertTrue(1 - 1.0 / 49 * 49 > 0, "the share times 49 rounds below 1");
    assertEquals(0, textbook.residual[0]);
    assertEquals(1 - 1.0 / 49 * 49, textbook.residual[1]);
    assertEquals(textbook.events, fast.events);
    assertArrayEquals(textbook.residual, fast.residual);
  }

  /**
   * Flows rising on resources (uplinks, then downlinks), frozen as a resource saturates: the first
   * {@code alive} resources of {@code order} rise (the rise may reorder its copy). With {@code
   * partial}, a resource's first saturation leaves one of its flows rising.
   */
  private final class Run {
    final int[] up;
    final int[] down;
    final boolean[] frozen;
    final int[] count;
    final double[] residual;
    final int[] order;
    final int alive;
    final boolean partial;
    final boolean[] saturated;
    final List<String> events = new ArrayList<>();
    long undrainedHere;

    Run(int[] up, int[] down, double[] residual, int[] order, int alive, boolean partial) {
      this.up = up;
      this.down = down;
      this.frozen = new boolean[up.length];
      this.residual = residual.clone();
      this.count = new int[residual.length];
      this.order = order.clone();
      this.alive = alive;
      this.partial = partial;
      this.saturated = new boolean[residual.length];
      for (int i = 0; i < up.length; i++) {
        count[up[i]]++;
        count[down[i]]++;
      }
    }

    void freeze(int r, double at) {
      events.add(r + "@" + Double.doubleToLongBits(at));
      boolean leaveOne = partial && !saturated[r] && count[r] > 1;
      saturated[r] = true;
      for (int i = 0; i < up.length; i++) {
        if (leaveOne && !frozen[i] && (up[i] == r || down[i] == r)) {
          leaveOne = false;
          undrainedHere++;
          continue;
        }
        if (!frozen[i] && (up[i] == r || down[i] == r)) {
          frozen[i] = true;
          count[up[i]]--;
          count[down[i]]--;
        }
      }
    }

    /**
     * The rise divided out for every resource with flows rising in every round; also counts, for
     * the test's coverage, whether each round's smallest share among the resources not due was
     * still the next round's (its count untouched by the saturations in between).
     */
    void rise() {
      double at = 0;
      while (true) {
        double step = Double.POSITIVE_INFINITY;
        int argmin = -1;
        for (int k = 0; k < alive; k++) {
          int r = order[k];
          if (count[r] > 0) {
            double s = Math.max(0, residual[r]) / count[r];
            if (s < step) {
              step = s;
              argmin = r;
            }
          }
        }
        if (argmin < 0) {
          return;
        }
        at += step;
        List<Integer> due = new ArrayList<>();
        for (int k = 0; k < alive; k++) {
          int r = order[k];
          if (count[r] > 0) {
            residual[r] = r == argmin ? 0 : residual[r] - step * count[r];
            if (residual[r] <= PortBudget.EPS) {
              due.add(r);
            }
          }
        }
        int next = -1;
        double nextStep = Double.POSITIVE_INFINITY;
        for (int k = 0; k < alive; k++) {
          int r = order[k];
          if (count[r] > 0 && !due.contains(r) && residual[r] / count[r] < nextStep) {
            nextStep = residual[r] / count[r];
            next = r;
          }
        }
        int[] before = Arrays.copyOf(count, count.length);
        for (int r : due) {
          if (count[r] > 0) {
            residual[r] = Math.max(0, residual[r]);
            freeze(r, at);
          }
        }
        if (next >= 0 && count[next] == before[next]) {
          held++;
        } else if (next >= 0) {
          moved++;
        }
      }
    }
  }
}
