package org.coflow.courier.enforce;

import java.util.PriorityQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A host's link cap shared by all its connections, handed out by priority: when the cap's bucket is
 * short, requests wait in one queue for the whole host, the most important first (lower priority
 * number), in arrival order within a priority. The sending side asks for each chunk (priority of
 * the connection's best ready stream), the receiving side for each credit grant. Without the queue
 * each connection would retry on its own and the cap would be shared evenly whatever the master's
 * order: a high-priority coflow on one connection could not overtake a low-priority one on another.
 * Thread-safe.
 */
public final class PriorityPacer {
  /** No cap: every grant goes at once. */
  public static final PriorityPacer UNLIMITED = new PriorityPacer(LinkRate.UNLIMITED, null);

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
      return priority != o.priority
          ? Integer.compare(priority, o.priority)
          : Long.compare(seq, o.seq);
    }
  }

  private final LinkRate cap;
  private final ScheduledExecutorService timer;
  private final PriorityQueue<Waiting> queue = new PriorityQueue<>();
  private long seq;
  private boolean draining;

  /** Paces by {@code cap}; {@code timer} runs the queue's later grants. */
  public PriorityPacer(LinkRate cap, ScheduledExecutorService timer) {
    this.cap = cap;
    this.timer = timer;
  }

  public boolean limited() {
    return cap.limited();
  }

  /** Returns bytes taken for a send that did not happen. */
  public void giveBack(long bytes) {
    cap.giveBack(bytes);
  }

  /**
   * Counts bytes granted outside the queue (a stream's first credit), even if that leaves the cap
   * in debt: the queue's next grants wait until it is paid.
   */
  public void charge(long bytes) {
    cap.charge(bytes);
  }

  /**
   * Takes {@code bytes} for a request of {@code priority}: true if they may go now; else {@code
   * later} runs (on the timer's thread) when their turn comes, the bytes already taken.
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
