package org.coflow.courier.enforce;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A coflow's pace on a simulated clock while the master renews its rate every decision. */
class PaceTableTest {
  private static final int CHUNK = 64 << 10;

  @Test
  void aRenewedRateNeitherRefillsNorEmptiesTheBucket() {
    long[] now = {0};
    PaceTable paces = new PaceTable(CHUNK, () -> now[0]);
    double rate = 1e6;
    long seconds = 10;
    double bytes = 0;
    long nextDecision = 0;
    int decision = 0;
    while (now[0] < seconds * 1_000_000_000L) {
      if (now[0] >= nextDecision) {
        // Every 100 ms (the master's Δ) a rate within 1% of the last one.
        paces.set("dst", "c", decision++ % 2 == 0 ? rate : rate * 1.01);
        nextDecision += 100_000_000L;
      }
      long wait = paces.get("dst", "c").tryTake(CHUNK);
      if (wait == 0) {
        bytes += CHUNK;
      } else {
        now[0] += Math.min(wait, nextDecision - now[0]);
      }
    }
    double burst = CHUNK + 1.01 * rate * LinkRate.SLACK_SECONDS;
    assertTrue(
        bytes <= 1.01 * rate * seconds + burst + CHUNK,
        "sent " + bytes + " bytes in " + seconds + " s at about " + rate + " B/s");
    assertTrue(bytes >= 0.99 * rate * seconds, "sent only " + bytes + " bytes");
  }
}
