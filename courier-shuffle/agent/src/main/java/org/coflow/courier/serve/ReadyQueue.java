package org.coflow.courier.serve;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * A serving connection's streams with something to send, in the order the bytes should go:
 *
 * <ol>
 *   <li>by priority, lowest first, strictly (the master's classes);
 *   <li>within a priority, coflows share the bytes by deficit round-robin: each coflow's turn adds
 *       a quantum of bytes to its deficit and lasts until the deficit is spent, so a coflow of 2 KB
 *       blocks gets as many bytes per round as one of 64 KiB chunks (a turn per chunk would give it
 *       a thirtieth); a coflow is one flow of the host pair whatever the number of its blocks
 *       (Courier §5.1.2 saw small coflows blocked by the per-block split). A latency lane instead
 *       serves the coflow that has sent the fewest bytes since it last had nothing ready (least
 *       attained service): a lane carries only the first bytes of each flow, so its coflows are all
 *       young, and round-robin among twenty of them would make a small coflow wait for twenty turns
 *       where least-served lets it go next;
 *   <li>within a coflow, readers (reduce tasks) take turns, one reader per coflow turn;
 *   <li>within a reader, its blocks go whole and in the order requested, so the task can start on
 *       its first block while the rest arrive (what Spark's own server does), instead of all of
 *       them completing together at the end of a chunk-by-chunk rotation.
 * </ol>
 *
 * <p>{@link #next} only peeks; the sender reports what it sent with {@link #sent} and takes a
 * stream out with {@link #remove} when it has no credit left or has ended. Not thread-safe: one
 * connection's event loop.
 *
 * @param <S> a stream
 */
final class ReadyQueue<S> {
  /** One coflow's ready streams at one priority: its readers in turn, each reader's in order. */
  private final class Flow {
    final String coflow;
    final LinkedHashMap<Object, ArrayDeque<S>> readers = new LinkedHashMap<>();
    long deficit;
    boolean inTurn;

    /** Bytes sent since this coflow last had nothing ready (least-served order). */
    long served;

    Flow(String coflow) {
      this.coflow = coflow;
    }

    S head() {
      return readers.values().iterator().next().peekFirst();
    }

    /** The turn is over: the next reader goes first next time. */
    void endTurn() {
      inTurn = false;
      if (readers.size() > 1) {
        Map.Entry<Object, ArrayDeque<S>> first = readers.entrySet().iterator().next();
        readers.remove(first.getKey());
        readers.put(first.getKey(), first.getValue());
      }
    }
  }

  /** One priority: its coflows in turn (the head is the one whose turn it is). */
  private final class Level {
    final ArrayDeque<Flow> round = new ArrayDeque<>();
    final Map<String, Flow> byCoflow = new HashMap<>();
  }

  private final TreeMap<Integer, Level> byPriority = new TreeMap<>();
  private final ToIntFunction<S> priority;
  private final Function<S, String> coflow;
  private final Function<S, Object> reader;
  private final long quantum;
  private final boolean leastServed;

  /**
   * @param quantum bytes a coflow's turn adds to its deficit; at least the largest piece ever sent
   *     at once (a chunk), so that every turn sends something
   * @param leastServed coflows of one priority go least-served first rather than in turn
   */
  ReadyQueue(
      ToIntFunction<S> priority,
      Function<S, String> coflow,
      Function<S, Object> reader,
      long quantum,
      boolean leastServed) {
    if (quantum < 1) {
      throw new IllegalArgumentException("the quantum must be positive, got " + quantum);
    }
    this.priority = priority;
    this.coflow = coflow;
    this.reader = reader;
    this.quantum = quantum;
    this.leastServed = leastServed;
  }

  /** Forgets every stream (the connection closed). */
  void clear() {
    byPriority.clear();
  }

  boolean isEmpty() {
    return byPriority.isEmpty();
  }

  /** The best priority with a ready stream; only when not empty. */
  int firstPriority() {
    return byPriority.firstKey();
  }

  /**
   * Queues {@code s}: first among its reader's streams if {@code resume} (a block already under
   * way, which finishes before the reader's next one starts), else last; its reader last in its
   * coflow's turn, its coflow last in the round if they are new.
   */
  void add(S s, boolean resume) {
    Level level = byPriority.computeIfAbsent(priority.applyAsInt(s), k -> new Level());
    Flow f = level.byCoflow.get(coflow.apply(s));
    if (f == null) {
      f = new Flow(coflow.apply(s));
      level.byCoflow.put(f.coflow, f);
      level.round.addLast(f);
    }
    ArrayDeque<S> q = f.readers.computeIfAbsent(reader.apply(s), k -> new ArrayDeque<>());
    if (resume) {
      q.addFirst(s);
    } else {
      q.addLast(s);
    }
  }

  /** Takes {@code s} out, if queued, under the priority it was queued with. */
  void remove(S s, int queuedPriority) {
    Level level = byPriority.get(queuedPriority);
    if (level == null) {
      return;
    }
    Flow f = level.byCoflow.get(coflow.apply(s));
    if (f == null) {
      return;
    }
    Object r = reader.apply(s);
    ArrayDeque<S> q = f.readers.get(r);
    if (q == null || !q.remove(s) || !q.isEmpty()) {
      return;
    }
    f.readers.remove(r);
    if (f.readers.isEmpty()) {
      // Deficit round-robin forgets the deficit of a flow with nothing to send.
      level.byCoflow.remove(f.coflow);
      level.round.remove(f);
      if (level.round.isEmpty()) {
        byPriority.remove(queuedPriority);
      }
    }
  }

  /**
   * The stream to send from next, left in the queue (null if none may go now): the best priority,
   * the coflow whose turn it is, its current reader's first stream. {@code wait} says how many
   * nanoseconds a stream's pace makes it wait (0: it may go); a paced-out coflow passes its turn,
   * and {@code waited[0]} gets the shortest wait of those passed over.
   */
  S next(ToLongFunction<S> wait, long[] waited) {
    waited[0] = Long.MAX_VALUE;
    for (Level level : byPriority.values()) {
      if (leastServed) {
        S head = leastServed(level, wait, waited);
        if (head != null) {
          return head;
        }
        continue;
      }
      // Each coflow is looked at most twice: once to start its turn, once more if its deficit
      // was still short (it cannot be short twice: a turn adds at least a piece's bytes).
      for (int k = 2 * level.round.size(); k > 0; k--) {
        Flow f = level.round.peekFirst();
        if (!f.inTurn) {
          f.deficit += quantum;
          f.inTurn = true;
        }
        if (f.deficit <= 0) {
          rotate(level, f);
          continue;
        }
        S head = f.head();
        long w = wait.applyAsLong(head); // last: a pace that allows takes the bytes
        if (w > 0) {
          // Held by its pace, which sets its share: it gives up what is left of its turn.
          waited[0] = Math.min(waited[0], w);
          f.deficit = Math.min(f.deficit, 0);
          rotate(level, f);
          continue;
        }
        return head;
      }
    }
    return null;
  }

  /** The head of the least-served coflow of {@code level} its pace lets go, or null. */
  private S leastServed(Level level, ToLongFunction<S> wait, long[] waited) {
    List<Flow> byServed = new ArrayList<>(level.round);
    byServed.sort(Comparator.comparingLong(f -> f.served)); // stable: ties keep arrival order
    for (Flow f : byServed) {
      S head = f.head();
      long w = wait.applyAsLong(head);
      if (w <= 0) {
        return head;
      }
      waited[0] = Math.min(waited[0], w);
    }
    return null;
  }

  /**
   * {@code bytes} of {@code s} went out (a chunk, or 0 for an end marker alone): charged to its
   * coflow's turn, which ends once the deficit is spent.
   */
  void sent(S s, int queuedPriority, long bytes) {
    Level level = byPriority.get(queuedPriority);
    Flow f = level == null ? null : level.byCoflow.get(coflow.apply(s));
    if (f == null) {
      return;
    }
    f.served += bytes;
    f.deficit -= bytes;
    if (!leastServed && f.deficit <= 0 && f.inTurn && level.round.peekFirst() == f) {
      rotate(level, f);
    }
  }

  private void rotate(Level level, Flow f) {
    f.endTurn();
    level.round.pollFirst();
    level.round.addLast(f);
  }
}
