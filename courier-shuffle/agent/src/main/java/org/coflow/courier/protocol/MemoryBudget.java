package org.coflow.courier.protocol;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * Bytes an agent holds for its peers, against a cap ({@code coflow.courier.maxBufferedBytes}). An
 * agent has two: what decoders of accepted connections have buffered of incomplete frames (reserved
 * after every read; a connection whose reservation would cross the cap is refused with {@code
 * BUSY}), and what it may have to hold for local clients' streams (their credit: reserved before it
 * is granted, released once the bytes have left). What does not fit waits ({@link #whenFreed}) or
 * is refused; it never grows the process's memory past the cap. Thread-safe.
 */
public final class MemoryBudget {
  private final long cap;
  private final AtomicLong used = new AtomicLong();
  private final LongAccumulator peak = new LongAccumulator(Math::max, 0);
  private final AtomicLong refused = new AtomicLong();

  private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> waiting =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  public MemoryBudget(long cap) {
    this.cap = cap;
  }

  /** Reserves {@code n} bytes if they fit under the cap. */
  public boolean tryReserve(long n) {
    return n <= 0 || resize(0, n);
  }

  /** Reserves as much of {@code n} bytes as fits under the cap; returns how much (maybe 0). */
  public long tryReserveUpTo(long n) {
    while (n > 0) {
      long now = used.get();
      long take = Math.min(n, cap - now);
      if (take <= 0) {
        return 0;
      }
      if (used.compareAndSet(now, now + take)) {
        peak.accumulate(now + take);
        return take;
      }
    }
    return 0;
  }

  /** Gives back {@code n} reserved bytes, and lets those waiting for room try again. */
  public void release(long n) {
    if (n > 0) {
      resize(n, 0);
    }
  }

  /**
   * Runs {@code retry} once, the next time bytes are given back (at once if nothing is reserved);
   * whoever still does not fit then asks again.
   */
  public void whenFreed(Runnable retry) {
    waiting.add(retry);
    // Bytes given back between the caller's failed reservation and this add woke nobody: if
    // there is room now, the caller tries again at once.
    if (used.get() < cap) {
      wake();
    }
  }

  private void wake() {
    Runnable r;
    int n = waiting.size();
    while (n-- > 0 && (r = waiting.poll()) != null) {
      r.run();
    }
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
      if (delta < 0 && !waiting.isEmpty()) {
        wake();
      }
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
