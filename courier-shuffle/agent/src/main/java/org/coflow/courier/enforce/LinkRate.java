package org.coflow.courier.enforce;

/**
 * A host's link rate: a token bucket all of an agent's sending connections draw from, so that on
 * one machine, where loopback is never the bottleneck, the agent still behaves like a host behind
 * a NIC of this rate and scheduling visibly matters. Thread-safe.
 */
public final class LinkRate {
  /** No cap. */
  public static final LinkRate UNLIMITED = new LinkRate(0, 0);

  private final double bytesPerSecond;
  private final double burst;
  private double tokens;
  private long last = System.nanoTime();

  /**
   * @param bytesPerSecond the cap; 0 for none
   * @param burst bytes that may go at once after a quiet spell (at least one chunk)
   */
  public LinkRate(double bytesPerSecond, double burst) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("a link rate must not be negative, got " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.burst = burst;
    this.tokens = burst;
  }

  /** Returns tokens taken for a send that did not happen. */
  public synchronized void giveBack(long bytes) {
    if (bytesPerSecond > 0) {
      tokens = Math.min(burst, tokens + bytes);
    }
  }

  /** The cap in bytes/s, 0 for none. */
  public double bytesPerSecond() {
    return bytesPerSecond;
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
    long now = System.nanoTime();
    tokens = Math.min(burst, tokens + (now - last) / 1e9 * bytesPerSecond);
    last = now;
    if (tokens >= bytes || tokens >= burst) {
      tokens -= bytes;
      return 0;
    }
    return Math.max(100_000L, (long) ((bytes - tokens) / bytesPerSecond * 1e9));
  }
}
