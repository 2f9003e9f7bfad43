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
 * Ready means data and credit: a stream waiting for its reader's credit holds nobody back. Among
 * equal priorities the host's latency lane goes first: it carries only small blocks, and a bulk
 * connection that kept sending beside it would give it one TCP share among several, so a small
 * coflow would wait behind bulk chunks in the sender's socket and the network's queues. A
 * connection's standing is its {@link #rank}. Thread-safe (connections run on different event
 * loops).
 */
public final class DestinationOrder {
  /** The rank of a connection with nothing ready. */
  public static final long NONE = Long.MAX_VALUE;

  /**
   * The standing of a connection whose best ready priority is {@code priority}: lower goes first.
   */
  public static long rank(int priority, boolean lane) {
    return ((long) priority << 1) | (lane ? 0 : 1);
  }

  /** One connection's entry: its best ready rank and how to wake it. */
  private static final class Sender {
    long best = NONE;
    final Runnable wake;

    Sender(Runnable wake) {
      this.wake = wake;
    }
  }

  private final Map<String, Map<Object, Sender>> byHost = new HashMap<>();

  /**
   * Sets {@code sender}'s best ready {@link #rank} towards {@code dstHost} ({@link #NONE}: nothing
   * ready); {@code wake} is how to make it try again (it must not block or re-enter).
   */
  public void update(String dstHost, Object sender, long best, Runnable wake) {
    List<Runnable> toWake = new ArrayList<>();
    synchronized (this) {
      Map<Object, Sender> senders = byHost.computeIfAbsent(dstHost, h -> new HashMap<>());
      long before = floor(senders);
      senders.computeIfAbsent(sender, s -> new Sender(wake)).best = best;
      if (floor(senders) > before) {
        for (Map.Entry<Object, Sender> e : senders.entrySet()) {
          if (e.getKey() != sender && e.getValue().best < NONE) {
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
   * Whether {@code sender} may send a chunk of {@code rank} to {@code dstHost} now: no other
   * connection to that host has a better one ready (its own entry may be stale mid-pump).
   */
  public synchronized boolean maySend(String dstHost, Object sender, long rank) {
    Map<Object, Sender> senders = byHost.get(dstHost);
    if (senders == null) {
      return true;
    }
    for (Map.Entry<Object, Sender> e : senders.entrySet()) {
      if (e.getKey() != sender && e.getValue().best < rank) {
        return false;
      }
    }
    return true;
  }

  /** Forgets {@code sender} (its connection closed), waking the ones it held back. */
  public void remove(String dstHost, Object sender) {
    update(dstHost, sender, NONE, () -> {});
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

  private static long floor(Map<Object, Sender> senders) {
    long min = NONE;
    for (Sender s : senders.values()) {
      min = Math.min(min, s.best);
    }
    return min;
  }
}
