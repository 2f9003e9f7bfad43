package org.coflow.courier.metrics;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A latency histogram cheap enough for the data path: a lock-free count per bucket, buckets of
 * microseconds growing by powers of two with four steps each (a quantile is known within 19%), from
 * 1 µs to about 18 minutes. Thread-safe.
 */
public final class Histogram {
  private static final int STEPS = 4;
  private static final int BUCKETS = 32 * STEPS;

  private final AtomicLongArray buckets = new AtomicLongArray(BUCKETS);
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong sumMicros = new AtomicLong();
  private final AtomicLong maxMicros = new AtomicLong();

  /** Records one duration of {@code nanos} (negative ones count as zero). */
  public void recordNanos(long nanos) {
    long micros = Math.max(0, nanos / 1000);
    buckets.incrementAndGet(bucket(micros));
    count.incrementAndGet();
    sumMicros.addAndGet(micros);
    maxMicros.accumulateAndGet(micros, Math::max);
  }

  /** The bucket of {@code micros}: its power of two, then which quarter of it. */
  static int bucket(long micros) {
    if (micros < STEPS) {
      return (int) micros;
    }
    int exp = 63 - Long.numberOfLeadingZeros(micros); // micros in [2^exp, 2^(exp+1))
    int step = (int) ((micros >>> (exp - 2)) & (STEPS - 1));
    return Math.min(BUCKETS - 1, (exp - 1) * STEPS + step);
  }

  /** The largest value bucket {@code b} holds, in microseconds. */
  static long upperMicros(int b) {
    if (b < STEPS) {
      return b;
    }
    int exp = b / STEPS + 1;
    int step = b % STEPS;
    return (1L << exp) + ((step + 1L) << (exp - 2)) - 1;
  }

  /** What was recorded so far. */
  public Snapshot snapshot() {
    long[] counts = new long[BUCKETS];
    long n = 0;
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] = buckets.get(i);
      n += counts[i];
    }
    return new Snapshot(n, n == 0 ? 0 : sumMicros.get() / 1e3 / n, counts, maxMicros.get() / 1e3);
  }

  /** A histogram's state at one instant; times in milliseconds. */
  public static final class Snapshot {
    private final long count;
    private final double meanMillis;
    private final long[] counts;
    private final double maxMillis;

    Snapshot(long count, double meanMillis, long[] counts, double maxMillis) {
      this.count = count;
      this.meanMillis = meanMillis;
      this.counts = counts;
      this.maxMillis = maxMillis;
    }

    public long count() {
      return count;
    }

    public double meanMillis() {
      return meanMillis;
    }

    public double maxMillis() {
      return maxMillis;
    }

    /** The {@code q} quantile (0..1) in milliseconds, as its bucket's upper end; 0 if empty. */
    public double quantileMillis(double q) {
      if (count == 0) {
        return 0;
      }
      long rank = (long) Math.ceil(q * count);
      long seen = 0;
      for (int i = 0; i < counts.length; i++) {
        seen += counts[i];
        if (seen >= Math.max(1, rank)) {
          return Math.min(upperMicros(i) / 1e3, maxMillis);
        }
      }
      return maxMillis;
    }
  }
}
