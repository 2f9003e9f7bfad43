package org.coflow.courier.serve;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * A serving connection's streams with something to send: by priority (lowest first, strictly),
 * within a priority by coflow in turn, within a coflow by stream in turn. Turns go to coflows, not
 * to streams: a coflow is one flow of the host pair whatever the number of its blocks, so a wide
 * coflow with a hundred blocks on the unified connection takes one share, as it would over a
 * connection of its own, instead of a hundred (per-flow fair sharing; Courier §5.1.2 saw small
 * coflows blocked by the per-block split). Not thread-safe: one connection's event loop.
 *
 * @param <S> a stream
 */
final class ReadyQueue<S> {
  private final TreeMap<Integer, LinkedHashMap<String, ArrayDeque<S>>> byPriority = new TreeMap<>();
  private final ToIntFunction<S> priority;
  private final Function<S, String> coflow;

  ReadyQueue(ToIntFunction<S> priority, Function<S, String> coflow) {
    this.priority = priority;
    this.coflow = coflow;
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

  /** Queues {@code s} last among its coflow's streams (its coflow last in turn if new). */
  void add(S s) {
    byPriority
        .computeIfAbsent(priority.applyAsInt(s), k -> new LinkedHashMap<>())
        .computeIfAbsent(coflow.apply(s), k -> new ArrayDeque<>())
        .add(s);
  }

  /** Takes {@code s} out, if queued, under the priority it was queued with. */
  void remove(S s, int queuedPriority) {
    LinkedHashMap<String, ArrayDeque<S>> level = byPriority.get(queuedPriority);
    if (level == null) {
      return;
    }
    String c = coflow.apply(s);
    ArrayDeque<S> q = level.get(c);
    if (q != null && q.remove(s) && q.isEmpty()) {
      level.remove(c);
      if (level.isEmpty()) {
        byPriority.remove(queuedPriority);
      }
    }
  }

  /**
   * The next stream to send a chunk of, taken out of the queue (null if none may go now): the best
   * priority, the coflow whose turn it is, that coflow's next stream; the coflow goes last in turn.
   * {@code wait} says, for a coflow's first stream, how many nanoseconds its pace makes it wait (0:
   * it may go); {@code waited[0]} gets the shortest wait of those passed over.
   */
  S next(ToLongFunction<S> wait, long[] waited) {
    waited[0] = Long.MAX_VALUE;
    for (Iterator<Map.Entry<Integer, LinkedHashMap<String, ArrayDeque<S>>>> levels =
            byPriority.entrySet().iterator();
        levels.hasNext(); ) {
      LinkedHashMap<String, ArrayDeque<S>> level = levels.next().getValue();
      for (Iterator<Map.Entry<String, ArrayDeque<S>>> coflows = level.entrySet().iterator();
          coflows.hasNext(); ) {
        Map.Entry<String, ArrayDeque<S>> e = coflows.next();
        long w = wait.applyAsLong(e.getValue().peekFirst());
        if (w > 0) {
          waited[0] = Math.min(waited[0], w);
          continue;
        }
        S s = e.getValue().pollFirst();
        coflows.remove();
        if (!e.getValue().isEmpty()) {
          level.put(e.getKey(), e.getValue()); // the coflow's turn is over: last in line
        }
        if (level.isEmpty()) {
          levels.remove();
        }
        return s;
      }
    }
    return null;
  }
}
