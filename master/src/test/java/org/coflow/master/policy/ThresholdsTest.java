package org.coflow.master.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The level of a byte count found from a guessed level (CODA's loops over a coflow's flows pass the
 * last flow's level) against the ladder's full scan, on the values where they could part: the
 * thresholds themselves and their neighbours, 0, negative counts, infinity, NaN and random counts.
 */
class ThresholdsTest {

  @Test
  void aGuessedLevelIsTheScannedLevelForEveryGuess() {
    Thresholds ladder = new Thresholds(5, 10_000, 10);
    Random random = new Random(23);
    double[] values = new double[64 + 200];
    int v = 0;
    for (int q = 0; q < ladder.levels() - 1; q++) {
      double t = ladder.upper(q);
      values[v++] = t;
      values[v++] = Math.nextUp(t);
      values[v++] = Math.nextDown(t);
    }
    values[v++] = 0;
    values[v++] = -0.0;
    values[v++] = -1;
    values[v++] = Double.POSITIVE_INFINITY;
    values[v++] = Double.NaN;
    while (v < values.length) {
      values[v++] = Math.pow(10, 8 * random.nextDouble());
    }
    for (double bytes : values) {
      int scanned = ladder.level(bytes);
      for (int guess = 0; guess < ladder.levels(); guess++) {
        assertEquals(
            scanned,
            ladder.level(bytes, guess),
            "level of " + bytes + " bytes guessed at level " + guess);
      }
    }
    // Each level is reached, so each guess is right for some values.
    for (int q = 0; q < ladder.levels(); q++) {
      assertEquals(q, ladder.level(q == 0 ? 1 : Math.nextUp(ladder.upper(q - 1)), q));
    }
  }

  @Test
  void aCrossingAtAKnownLevelIsTheCrossing() {
    Thresholds ladder = new Thresholds(4, 1_000, 4);
    for (double bytes : new double[] {0, 999, 1_000, 1_001, 15_999, 16_000, 1e9}) {
      assertEquals(
          ladder.crossing(bytes, 250, 3.5),
          ladder.crossingAt(ladder.level(bytes), bytes, 250, 3.5),
          "crossing from " + bytes + " bytes");
    }
  }
}
