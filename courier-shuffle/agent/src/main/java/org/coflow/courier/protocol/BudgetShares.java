package org.coflow.courier.protocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a {@link MemoryBudget} between identities, so that no one of them can hold all of it. An
 * identity that holds bytes may reserve up to {@code cap / (holders + 1)}, where {@code holders}
 * counts the identities holding bytes (itself included, also when it asks for its first bytes):
 * alone it gets half of the budget, and one more share always stays for whoever comes next. A
 * client that stops reading keeps what it has but cannot take more; each newcomer shrinks the
 * shares of those that come after it, and shares grow back as holders give their bytes back.
 *
 * <p>What cannot be had now waits: {@link Holder#whenFreed} runs its retry once bytes come back or
 * at once when there is room for that holder, never in a loop when only its share is full.
 * Thread-safe; reservations and releases take one short lock.
 */
public final class BudgetShares {
  private final MemoryBudget budget;

  /** Identities with a session open or bytes held (guarded by {@code this}). */
  private final Map<String, Holder> holders = new HashMap<>();

  /** How many of them hold bytes (guarded by {@code this}). */
  private int holding;

  /** Retries waiting for bytes to come back (guarded by {@code this}). */
  private List<Runnable> waiting = new ArrayList<>();

  public BudgetShares(MemoryBudget budget) {
    this.budget = budget;
  }

  /** The budget the shares split. */
  public MemoryBudget budget() {
    return budget;
  }

  /** {@code identity}'s share, held open until {@link Holder#close}. */
  public synchronized Holder join(String identity) {
    Holder h = holders.computeIfAbsent(identity, Holder::new);
    h.sessions++;
    return h;
  }

  /** Identities that hold bytes now. */
  public synchronized int holding() {
    return holding;
  }

  /** Identities tracked now (open sessions or bytes held). */
  synchronized int tracked() {
    return holders.size();
  }

  /** What one identity may hold in all. */
  private long limit(Holder h) {
    int n = holding + (h.held == 0 ? 1 : 0);
    return budget.cap() / (n + 1);
  }

  private void wake() {
    List<Runnable> now;
    synchronized (this) {
      if (waiting.isEmpty()) {
        return;
      }
      now = waiting;
      waiting = new ArrayList<>();
    }
    for (Runnable r : now) {
      r.run();
    }
  }

  /** One identity's part of the budget, shared by all its sessions. */
  public final class Holder implements AutoCloseable {
    private final String identity;
    private long held;
    private int sessions;

    private Holder(String identity) {
      this.identity = identity;
    }

    public String identity() {
      return identity;
    }

    /** Bytes this identity holds. */
    public long held() {
      synchronized (BudgetShares.this) {
        return held;
      }
    }

    /** Reserves {@code n} bytes if they fit in the share and under the cap. */
    public boolean tryReserve(long n) {
      if (n <= 0) {
        return true;
      }
      synchronized (BudgetShares.this) {
        if (held + n > limit(this) || !budget.tryReserve(n)) {
          return false;
        }
        add(n);
        return true;
      }
    }

    /** Reserves as much of {@code n} bytes as fits; returns how much (maybe 0). */
    public long tryReserveUpTo(long n) {
      synchronized (BudgetShares.this) {
        long room = Math.min(n, limit(this) - held);
        long take = room > 0 ? budget.tryReserveUpTo(room) : 0;
        add(take);
        return take;
      }
    }

    private void add(long n) {
      if (n > 0) {
        if (held == 0) {
          holding++;
        }
        held += n;
      }
    }

    /** Gives back {@code n} bytes, and lets those that wait for room try again. */
    public void release(long n) {
      if (n <= 0) {
        return;
      }
      synchronized (BudgetShares.this) {
        if (n > held) {
          throw new IllegalStateException(
              identity + " gives back " + n + " bytes and holds only " + held);
        }
        held -= n;
        if (held == 0) {
          holding--;
          forgetIfIdle();
        }
      }
      budget.release(n);
      wake();
    }

    /**
     * Runs {@code retry} once: at once if this identity could reserve a byte now, or else the next
     * time any identity gives bytes back.
     */
    public void whenFreed(Runnable retry) {
      synchronized (BudgetShares.this) {
        if (held >= limit(this) || budget.used() >= budget.cap()) {
          waiting.add(retry);
          return;
        }
      }
      retry.run();
    }

    /** One session of this identity ended; what it still holds is given back as it leaves. */
    @Override
    public void close() {
      synchronized (BudgetShares.this) {
        sessions--;
        forgetIfIdle();
      }
    }

    private void forgetIfIdle() {
      if (sessions <= 0 && held == 0) {
        holders.remove(identity, this);
      }
    }
  }
}
