package org.coflow.master.policy;

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
      Run fast = new Run(up, down, residual);
      Run textbook = new Run(up, down, residual);
      WaterFilling.rise(
          fast.live(), fast.alive(), fast.count, fast.residual, new int[2 * ports], fast::freeze);
      textbook.rise();
      assertEquals(textbook.events, fast.events, "saturations, round " + round);
      assertArrayEquals(textbook.residual, fast.residual, "residuals, round " + round);
      assertArrayEquals(textbook.count, fast.count, "counts, round " + round);
    }
    // Both ways of finding a round's smallest share were taken many times.
    assertTrue(held > 1000, "rounds whose smallest share held: " + held);
    assertTrue(moved > 1000, "rounds whose smallest share a saturation moved: " + moved);
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
    Run fast = new Run(up, down, residual);
    Run textbook = new Run(up, down, residual);
    WaterFilling.rise(
        fast.live(), fast.alive(), fast.count, fast.residual, new int[2 * ports], fast::freeze);
    textbook.rise();
    assertTrue(1 - 1.0 / 49 * 49 > 0, "the share times 49 rounds below 1");
    assertEquals(0, textbook.residual[0]);
    assertEquals(1 - 1.0 / 49 * 49, textbook.residual[1]);
    assertEquals(textbook.events, fast.events);
    assertArrayEquals(textbook.residual, fast.residual);
  }

  /** Flows rising on resources (uplinks, then downlinks), frozen as a resource saturates. */
  private final class Run {
    final int[] up;
    final int[] down;
    final boolean[] frozen;
    final int[] count;
    final double[] residual;
    final List<String> events = new ArrayList<>();

    Run(int[] up, int[] down, double[] residual) {
      this.up = up;
      this.down = down;
      this.frozen = new boolean[up.length];
      this.residual = residual.clone();
      this.count = new int[residual.length];
      for (int i = 0; i < up.length; i++) {
        count[up[i]]++;
        count[down[i]]++;
      }
    }

    int[] live() {
      int[] live = new int[count.length];
      for (int r = 0; r < live.length; r++) {
        live[r] = r;
      }
      return live;
    }

    int alive() {
      return count.length;
    }

    void freeze(int r, double at) {
      events.add(r + "@" + Double.doubleToLongBits(at));
      for (int i = 0; i < up.length; i++) {
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
        for (int r = 0; r < count.length; r++) {
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
        for (int r = 0; r < count.length; r++) {
          if (count[r] > 0) {
            residual[r] = r == argmin ? 0 : residual[r] - step * count[r];
            if (residual[r] <= PortBudget.EPS) {
              due.add(r);
            }
          }
        }
        int next = -1;
        double nextStep = Double.POSITIVE_INFINITY;
        for (int r = 0; r < count.length; r++) {
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
