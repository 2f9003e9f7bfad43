package org.coflow.courier.protocol;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * The bytes of incomplete frames all of an agent's accepted connections hold, against a cap: a
 * decoder reserves what it has buffered after every read, and a connection whose reservation would
 * cross the cap is refused ({@code BUSY}) instead of growing the process's direct memory.
 * Thread-safe.
 */
public final class MemoryBudget {
  private final long cap;
  private final AtomicLong used = new AtomicLong();
  private final LongAccumulator peak = new LongAccumulator(Math::max, 0);
  private final AtomicLong refused = new AtomicLong();

  public MemoryBudget(long cap) {
    this.cap = cap;
  }

  /**
   * Changes a holder's reservation from {@code before} to {@code after} bytes.
   *
   * @return false (and nothing reserved beyond {@code before}) when {@code after} does not fit
   */
  boolean resize(long before, long after) {
    long delta = after - before;
    if (delta <= 0) {
      used.addAndGet(delta);
      return true;
    }
    long now = used.addAndGet(delta);
    if (now > cap) {
      used.addAndGet(-delta);
      refused.incrementAndGet();
      return false;
    }
    peak.accumulate(now);
    return true;
  }

  public long cap() {
    return cap;
  }

  public long used() {
    return used.get();
  }

  /** The most bytes held at once. */
  public long peak() {
    return peak.get();
  }

  /** Connections refused because they would have crossed the cap. */
  public long refused() {
    return refused.get();
  }
}
