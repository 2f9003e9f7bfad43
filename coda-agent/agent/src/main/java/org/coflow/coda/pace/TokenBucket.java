package org.coflow.coda.pace;

/**
 * A flow's pace at its sender, as CODA's per-flow HTB leaf: tokens accrue at the rate the master
 * set, up to a small burst, and a write spends what it wrote. A write larger than the tokens left
 * (a blocking stream's whole buffer) leaves a debt the next writes wait out, so the average rate
 * holds whatever the write sizes. Guarded by the caller.
 */
public final class TokenBucket {
  /** Burst: this long at the rate, and never under 64 KiB. */
  private static final double BURST_SECONDS = 0.02;

  private static final double MIN_BURST = 64 * 1024;

  private double rate;
  private double tokens;
  private long lastNanos;

  /**
   * @param rate bytes/s, 0 = hold
   */
  public TokenBucket(double rate, long nowNanos) {
    this.rate = rate;
    this.tokens = burst();
    this.lastNanos = nowNanos;
  }

  public double rate() {
    return rate;
  }

  public void setRate(double rate, long nowNanos) {
    refill(nowNanos);
    this.rate = rate;
    tokens = Math.min(tokens, burst());
  }

  /** Whole bytes available now (0 or more; a debt shows as 0). */
  public long available(long nowNanos) {
    refill(nowNanos);
    return tokens <= 0 ? 0 : (long) tokens;
  }

  /**
   * Nanoseconds until at least {@code bytes} are available (capped at the burst), or -1 when held
   * (rate 0).
   */
  public long nanosUntil(long bytes, long nowNanos) {
    refill(nowNanos);
    double need = Math.min(bytes, burst()) - tokens;
    if (need <= 0) {
      return 0;
    }
    if (rate <= 0) {
      return -1;
    }
    return (long) Math.ceil(need / rate * 1e9);
  }

  public void spend(long bytes, long nowNanos) {
    refill(nowNanos);
    tokens -= bytes;
  }

  private void refill(long nowNanos) {
    long dt = nowNanos - lastNanos;
    if (dt > 0) {
      tokens = Math.min(burst(), tokens + rate * dt / 1e9);
      lastNanos = nowNanos;
    }
  }

  private double burst() {
    return Math.max(MIN_BURST, rate * BURST_SECONDS);
  }
}
