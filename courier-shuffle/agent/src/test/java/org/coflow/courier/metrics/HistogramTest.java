package org.coflow.courier.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HistogramTest {
  @Test
  void quantilesAreWithinABucketOfTheTruth() {
    Histogram h = new Histogram();
    for (int ms = 1; ms <= 1000; ms++) {
      h.recordNanos(ms * 1_000_000L);
    }
    Histogram.Snapshot s = h.snapshot();
    assertEquals(1000, s.count());
    assertEquals(500.5, s.meanMillis(), 0.01);
    assertEquals(1000.0, s.maxMillis(), 1e-9);
    // A bucket spans a quarter of its power of two: the reported value is at most 25% above.
    assertTrue(s.quantileMillis(0.5) >= 500 && s.quantileMillis(0.5) <= 625, "p50 " + s);
    assertTrue(s.quantileMillis(0.99) >= 990 && s.quantileMillis(0.99) <= 1000, "p99");
    assertEquals(0, new Histogram().snapshot().quantileMillis(0.5));
  }

  @Test
  void bucketsCoverEveryValueInOrder() {
    long previous = -1;
    for (int b = 0; b < 120; b++) {
      long upper = Histogram.upperMicros(b);
      assertTrue(upper > previous, "bucket " + b);
      assertEquals(b, Histogram.bucket(upper), "upper end of bucket " + b);
      assertEquals(b, Histogram.bucket(previous + 1), "lower end of bucket " + b);
      previous = upper;
    }
  }
}
