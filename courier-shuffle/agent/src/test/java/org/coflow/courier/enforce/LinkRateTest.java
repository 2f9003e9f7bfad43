package org.coflow.courier.enforce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The link cap on a simulated clock: a sender that asks again exactly when told, or a little late
 * (a timer on a busy machine), gets the cap's rate, and never more than the rate plus one burst.
 */
class LinkRateTest {
  static final int CHUNK = 64 << 10;
  static final double RATE = 2_500_000; // 20 Mbit/s
  static final long SECONDS = 20;

  /**
   * Bytes a sender taking a chunk at a time got in {@link #SECONDS}, coming {@code lateNanos} late.
   */
  static double carried(double burst, long lateNanos) {
    long[] now = {0};
    LinkRate cap = new LinkRate(RATE, burst, () -> now[0]);
    double bytes = 0;
    while (now[0] < SECONDS * 1_000_000_000L) {
      long wait = cap.tryTake(CHUNK);
      if (wait == 0) {
        bytes += CHUNK;
      } else {
        now[0] += wait + lateNanos;
      }
    }
    return bytes;
  }

  @Test
  void aPunctualSenderGetsTheRateAndNoMore() {
    double burst = LinkRate.withSlack(RATE, CHUNK).burst();
    double bytes = carried(burst, 0);
    assertTrue(
        bytes <= RATE * SECONDS + burst + CHUNK,
        bytes + " bytes in " + SECONDS + " s at " + RATE + " B/s");
    assertTrue(
        bytes >= RATE * SECONDS * 0.99, bytes + " bytes in " + SECONDS + " s at " + RATE + " B/s");
  }

  @Test
  void lateTurnsDoNotLoseTheLink() {
    long late = 5_000_000; // 5 ms, common for a timer thread on a loaded 2-core host
    double bytes = carried(LinkRate.withSlack(RATE, CHUNK).burst(), late);
    assertTrue(
        bytes >= RATE * SECONDS * 0.99,
        "a sender 5 ms late each turn got " + bytes / SECONDS + " B/s of " + RATE);
    assertTrue(bytes <= RATE * SECONDS + LinkRate.withSlack(RATE, CHUNK).burst() + CHUNK);
    // What the slack is for: a bucket of one chunk drops the tokens of every late turn.
    double oneChunk = carried(CHUNK, late);
    assertTrue(
        oneChunk < RATE * SECONDS * 0.9, "a one-chunk bucket got " + oneChunk / SECONDS + " B/s");
  }

  @Test
  void noCapMeansUnlimited() {
    assertEquals(LinkRate.UNLIMITED, LinkRate.withSlack(0, CHUNK));
    assertEquals(0, LinkRate.withSlack(0, CHUNK).tryTake(1L << 40));
  }
}
