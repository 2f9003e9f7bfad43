package org.coflow.courier.enforce;

import java.util.PriorityQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A host's receive cap, applied to the credit its connections grant: when the cap's bucket is
 * short, credit waits in one queue for the whole host, the most important stream first (lower
 * priority number), in arrival order within a priority. Without the queue every stream would
 * retry on its own and the cap would be shared evenly whatever the master's order, so a
 * high-priority coflow could not overtake at the receiving end. Thread-safe.
 */
public final class ReceivePacer {
  /** No cap: every grant goes at once. */
  public static final ReceivePacer UNLIMITED = new ReceivePacer(LinkRate.UNLIMITED, null);

  private static final class Waiting implements Comparable<Waiting> {
    final int priority;
    final long seq;
    final long bytes;
    final Runnable send;

    Waiting(int priority, long seq, long bytes, Runnable send) {
      this.priority = priority;
      this.seq = seq;
      this.bytes = bytes;
      this.send = send;
    }

    @Override
    public int compareTo(Waiting o) {
      return priority != o.priority ? Integer.compare(priority, o.priority) : Long.compare(seq, o.seq);
    }
  }

  private final LinkRate cap;
  private final ScheduledExecutorService timer;
  private final PriorityQueue<Waiting> queue = new PriorityQueue<>();
  private long seq;
  private boolean draining;

  /** Paces by {@code cap}; {@code timer} runs the queue's later grants. */
  public ReceivePacer(LinkRate cap, ScheduledExecutorService timer) {
    this.cap = cap;
    this.timer = timer;
  }

  public boolean limited() {
    return cap.limited();
  }

  /** Counts bytes granted outside the queue (a stream's first credit). */
  public void charge(long bytes) {
    cap.tryTake(bytes);
  }

  /**
   * Grants {@code bytes} of credit of a stream of {@code priority}: returns true if it may be sent
   * now; else {@code later} runs (on the timer's thread) when its turn comes.
   */
  public boolean grant(int priority, long bytes, Runnable later) {
    if (!cap.limited()) {
      return true; // no lock: UNLIMITED is shared by every connection of every agent
    }
    synchronized (this) {
      if (queue.isEmpty() && cap.tryTake(bytes) == 0) {
        return true;
      }
      queue.add(new Waiting(priority, seq++, bytes, later));
      if (!draining) {
        draining = true;
        timer.execute(this::drain);
      }
      return false;
    }
  }

  private void drain() {
    while (true) {
      Waiting next;
      synchronized (this) {
        Waiting head = queue.peek();
        if (head == null) {
          draining = false;
          return;
        }
        long wait = cap.tryTake(head.bytes);
        if (wait > 0) {
          timer.schedule(this::drain, wait, TimeUnit.NANOSECONDS);
          return;
        }
        next = queue.poll();
      }
      next.send.run();
    }
  }
}
