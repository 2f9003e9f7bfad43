package org.coflow.courier.enforce;

/**
 * A host's link rate: a token bucket all of an agent's sending connections draw from, so that on
 * one machine, where loopback is never the bottleneck, the agent still behaves like a host behind a
 * NIC of this rate and scheduling visibly matters. Thread-safe.
 */
public final class LinkRate {
  /** No cap. */
  public static final LinkRate UNLIMITED = new LinkRate(0, 0);

  /**
   * How late a sender may come for its turn without the link losing it: a bucket that holds only
   * one chunk drops the tokens of every late timer wakeup, so on a busy machine a cap of R carried
   * about 0.8 R (measured: 6 busy threads on 2 cores, one coflow alone on a 20 Mbit/s link).
   */
  static final double SLACK_SECONDS = 0.05;

  private final double bytesPerSecond;
  private final double burst;
  private final java.util.function.LongSupplier clock;
  private double tokens;
  private long last;

  /**
   * @param bytesPerSecond the cap; 0 for none
   * @param burst bytes that may go at once after a quiet spell (at least one chunk)
   */
  public LinkRate(double bytesPerSecond, double burst) {
    this(bytesPerSecond, burst, System::nanoTime);
  }

  /** As above, reading time (nanoseconds) from {@code clock}. */
  LinkRate(double bytesPerSecond, double burst, java.util.function.LongSupplier clock) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("a link rate must not be negative, got " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.burst = burst;
    this.tokens = burst;
    this.clock = clock;
    this.last = clock.getAsLong();
  }

  /**
   * A host link or pace of {@code bytesPerSecond} (0: none) for senders taking {@code chunk} bytes
   * at a time: its bucket holds a chunk plus {@link #SLACK_SECONDS} of the rate, so the average
   * rate holds when turns come late, and no more than that goes at once after a quiet spell.
   */
  public static LinkRate withSlack(double bytesPerSecond, int chunk) {
    return withSlack(bytesPerSecond, chunk, System::nanoTime);
  }

  /** As above, reading time (nanoseconds) from {@code clock}. */
  static LinkRate withSlack(
      double bytesPerSecond, int chunk, java.util.function.LongSupplier clock) {
    return bytesPerSecond > 0
        ? new LinkRate(bytesPerSecond, chunk + bytesPerSecond * SLACK_SECONDS, clock)
        : UNLIMITED;
  }

  /**
   * The same bucket at another rate, for senders taking {@code chunk} bytes at a time: the tokens
   * it holds now carry over (capped at the new bucket's size), so a new schedule neither refills
   * the bucket (a burst into shallow buffers at every decision) nor empties it.
   */
  public synchronized LinkRate rerated(double bytesPerSecond, int chunk) {
    if (bytesPerSecond <= 0) {
      return UNLIMITED;
    }
    long now = clock.getAsLong();
    double held = Math.min(burst, tokens + (now - last) / 1e9 * this.bytesPerSecond);
    LinkRate next = new LinkRate(bytesPerSecond, chunk + bytesPerSecond * SLACK_SECONDS, clock);
    next.tokens = Math.min(next.burst, held);
    next.last = now;
    return next;
  }

  /**
   * Takes {@code bytes} whether or not the bucket has them (it may go below empty): for bytes that
   * go regardless of the rate, such as a stream's first credit, so later takers wait for them.
   */
  public synchronized void charge(long bytes) {
    if (bytesPerSecond <= 0) {
      return;
    }
    long now = clock.getAsLong();
    tokens = Math.min(burst, tokens + (now - last) / 1e9 * bytesPerSecond) - bytes;
    last = now;
  }

  /** Returns tokens taken for a send that did not happen, or credit a stream did not use. */
  public synchronized void giveBack(long bytes) {
    if (bytesPerSecond > 0) {
      tokens = Math.min(burst, tokens + bytes);
    }
  }

  /** The cap in bytes/s, 0 for none. */
  public double bytesPerSecond() {
    return bytesPerSecond;
  }

  /** Bytes that may go at once after a quiet spell. */
  public double burst() {
    return burst;
  }

  public boolean limited() {
    return bytesPerSecond > 0;
  }

  /**
   * Takes {@code bytes} if the bucket has them.
   *
   * @return 0 if taken, else the nanoseconds to wait before asking again
   */
  public synchronized long tryTake(long bytes) {
    if (bytesPerSecond <= 0) {
      return 0;
    }
    long now = clock.getAsLong();
    tokens = Math.min(burst, tokens + (now - last) / 1e9 * bytesPerSecond);
    last = now;
    if (tokens >= bytes || tokens >= burst) {
      tokens -= bytes;
      return 0;
    }
    return Math.max(100_000L, (long) ((bytes - tokens) / bytesPerSecond * 1e9));
  }
}
