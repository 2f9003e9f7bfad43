package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.coflow.core.model.Fabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pair counts' water-filling, made from each port's list of pairs as pairs come and go, against
 * {@link WaterFilling#fill} of the same pairs with capacity left at both ends, resources taken by a
 * scan of the ports: the same rates and the same residuals, bit for bit. A random run on few ports
 * empties, refills, grows and reorders the ports' lists all the time, and the budget it fills has
 * ports saturated, at {@link PortBudget#EPS} or partly taken beforehand.
 */
class LevelPairCountsTest {
  private static final int PORTS = 11; // above a list's first length (8): lists grow
  private static final int LEVELS = 2;

  /** A port list that lost a pair never lets its rise end: the timeout makes that a failure. */
  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void fillingFromThePortsListsGivesWhatFillingThePairsGives() {
    LevelPairCounts counts = new LevelPairCounts(LEVELS, PORTS);
    int[][] mirror = new int[LEVELS][PORTS * PORTS];
    Random random = new Random(23);
    WaterFilling waterFilling = new WaterFilling(PORTS);
    Fabric fabric = Fabric.uniform(PORTS, 1000);
    int[] src = new int[PORTS * PORTS];
    int[] dst = new int[PORTS * PORTS];
    int[] up = new int[PORTS * PORTS];
    int[] down = new int[PORTS * PORTS];
    int[] flows = new int[PORTS * PORTS];
    double[] expected = new double[PORTS * PORTS];
    double[] before = new double[PORTS * PORTS];
    int compared = 0;
    int refused = 0;
    int blocked = 0;
    int emptied = 0;
    for (int step = 0; step < 40_000; step++) {
      int k = random.nextInt(LEVELS);
      int key = random.nextInt(PORTS * PORTS);
      int delta = mirror[k][key] == 0 || random.nextInt(100) < 45 ? 1 : -1;
      counts.count(k, key, delta);
      mirror[k][key] += delta;
      emptied += mirror[k][key] == 0 ? 1 : 0;
      if (step % 5 != 0) {
        continue;
      }
      PortBudget budget = new PortBudget(fabric);
      PortBudget reference = new PortBudget(fabric);
      for (int r = 0; r < 2 * PORTS; r++) {
        int u = random.nextInt(12);
        double left =
            u == 0 ? 0 : u == 1 ? PortBudget.EPS : u < 6 ? 1000 * random.nextDouble() : 1000;
        budget.residual[r] = left;
        reference.residual[r] = left;
      }
      int n = 0;
      int openPairs = 0;
      long open = 0;
      for (int p = 0; p < PORTS * PORTS; p++) {
        if (mirror[k][p] > 0) {
          src[n] = p / PORTS;
          dst[n] = p % PORTS;
          before[n] = counts.rate(k, src[n], dst[n]);
          if (budget.available(src[n], dst[n]) > PortBudget.EPS) {
            up[openPairs] = src[n];
            down[openPairs] = PORTS + dst[n];
            flows[openPairs++] = mirror[k][p];
            open += mirror[k][p];
          } else {
            blocked++;
          }
          n++;
        }
      }
      double[] from = budget.residual.clone();
      boolean filled = counts.fill(k, budget);
      assertEquals(open >= 2L * PORTS, filled, "a fill from the counts needs 2 * ports open flows");
      if (!filled) {
        assertArrayEquals(from, budget.residual, "a refused fill takes nothing");
        for (int j = 0; j < n; j++) {
          assertEquals(before[j], counts.rate(k, src[j], dst[j]), "a refused fill sets no rate");
        }
        refused++;
        continue;
      }
      waterFilling.fill(up, down, flows, openPairs, reference.residual, expected, true, null);
      for (int j = 0, o = 0; j < n; j++) {
        boolean rises = o < openPairs && up[o] == src[j] && down[o] == PORTS + dst[j];
        assertEquals(
            rises ? expected[o++] : 0.0,
            counts.rate(k, src[j], dst[j]),
            "step " + step + ", level " + k + ", pair " + src[j] + " -> " + dst[j]);
      }
      assertArrayEquals(reference.residual, budget.residual, "step " + step);
      // The same counts on the same budget keep that fill: the budget takes what it took.
      double[] left = budget.residual.clone();
      System.arraycopy(from, 0, budget.residual, 0, from.length);
      assertTrue(counts.keptFill(k, budget), "step " + step + ": the fill is kept");
      assertArrayEquals(left, budget.residual, "step " + step + ": a kept fill takes the same");
      compared++;
      if (compared % 50 == 0) {
        counts.clearRates(k);
        for (int j = 0; j < n; j++) {
          assertEquals(0.0, counts.rate(k, src[j], dst[j]), "cleared " + src[j] + " -> " + dst[j]);
        }
      }
    }
    // The run did what it is for: many fills compared, some refused, pairs blocked and emptied.
    assertTrue(compared > 1_000, "fills compared: " + compared);
    assertTrue(refused > 5, "fills refused: " + refused);
    assertTrue(blocked > 1_000, "pairs blocked: " + blocked);
    assertTrue(emptied > 1_000, "pairs emptied: " + emptied);
  }
}
