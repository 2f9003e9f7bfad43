package org.coflow.courier.enforce;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Strict priority across every connection a serving agent holds to one destination host. The
 * fetching agent may spread a unified flow over several connections (Courier Alg. 3 splits), and a
 * later, more important coflow's blocks then run on one of them while the others keep carrying less
 * important ones, each connection taking its TCP share: priority within a connection is not enough.
 * Each sender tells this table the best priority it has ready to send to a host; a chunk may go
 * only if no connection to the same host has a better one ready, and when the best ready priority
 * towards a host gets worse (a stream ended, or waits for credit), the senders held back are woken.
 * Ready means data and credit: a stream waiting for its reader's credit holds nobody back.
 * Thread-safe (connections run on different event loops).
 */
public final class DestinationOrder {
  /** One connection's entry: its best ready priority and how to wake it. */
  private static final class Sender {
    int best = Integer.MAX_VALUE;
    final Runnable wake;

    Sender(Runnable wake) {
      this.wake = wake;
    }
  }

  private final Map<String, Map<Object, Sender>> byHost = new HashMap<>();

  /**
   * Sets {@code sender}'s best ready priority towards {@code dstHost} ({@link Integer#MAX_VALUE}:
   * nothing ready); {@code wake} is how to make it try again (it must not block or re-enter).
   */
  public void update(String dstHost, Object sender, int best, Runnable wake) {
    List<Runnable> toWake = new ArrayList<>();
    synchronized (this) {
      Map<Object, Sender> senders = byHost.computeIfAbsent(dstHost, h -> new HashMap<>());
      int before = floor(senders);
      senders.computeIfAbsent(sender, s -> new Sender(wake)).best = best;
      if (floor(senders) > before) {
        for (Map.Entry<Object, Sender> e : senders.entrySet()) {
          if (e.getKey() != sender && e.getValue().best < Integer.MAX_VALUE) {
            toWake.add(e.getValue().wake);
          }
        }
      }
    }
    for (Runnable r : toWake) {
      r.run();
    }
  }

  /**
   * Whether {@code sender} may send a chunk of {@code priority} to {@code dstHost} now: no other
   * connection to that host has a better one ready (its own entry may be stale mid-pump).
   */
  public synchronized boolean maySend(String dstHost, Object sender, int priority) {
    Map<Object, Sender> senders = byHost.get(dstHost);
    if (senders == null) {
      return true;
    }
    for (Map.Entry<Object, Sender> e : senders.entrySet()) {
      if (e.getKey() != sender && e.getValue().best < priority) {
        return false;
      }
    }
    return true;
  }

  /** Forgets {@code sender} (its connection closed), waking the ones it held back. */
  public void remove(String dstHost, Object sender) {
    update(dstHost, sender, Integer.MAX_VALUE, () -> {});
    synchronized (this) {
      Map<Object, Sender> senders = byHost.get(dstHost);
      if (senders != null) {
        senders.remove(sender);
        if (senders.isEmpty()) {
          byHost.remove(dstHost);
        }
      }
    }
  }

  private static int floor(Map<Object, Sender> senders) {
    int min = Integer.MAX_VALUE;
    for (Sender s : senders.values()) {
      min = Math.min(min, s.best);
    }
    return min;
  }
}
