package org.coflow.courier.transport;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one event in per interval through (a log line about refused peers), counting the ones it
 * holds back, so that a flood of bad peers cannot flood the log. Thread-safe.
 */
public final class Throttle {
  private final long intervalNanos;
  private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong held = new AtomicLong();

  public Throttle(long intervalMillis) {
    this.intervalNanos = intervalMillis * 1_000_000;
  }

  /**
   * @return -1 if this event is held back, else how many were held back since the last one let
   *     through
   */
  public long pass() {
    long now = System.nanoTime();
    long at = next.get();
    if ((at == Long.MIN_VALUE || now - at >= 0) && next.compareAndSet(at, now + intervalNanos)) {
      return held.getAndSet(0);
    }
    held.incrementAndGet();
    return -1;
  }
}
