package org.coflow.sim.engine;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.coflow.core.model.Flow;

/**
 * {@link LazyFlowSimulator}'s moving flows (dense indices) in a min-heap of {@link #ARITY} children
 * per node on the time each counts as finished (a nanosecond of service or a billionth of its size
 * before it finishes), kept beside it in {@link #key} so that sifting reads one array. When a flow
 * finishes is worked out only when a walk for the next completion reaches it, from the anchors the
 * simulator keeps (its rate, the time of its last change and what it had left then).
 */
final class FinishHeap {
  /**
   * Children per heap node: four (a node's children share a cache line or two of keys, and the heap
   * is half as deep as a binary one) made Aalo's whole trace faster than two.
   */
  static final int ARITY = 4;

  private int[] heap = new int[1024];
  private double[] key = new double[1024];

  /** Per flow (dense index), its node, or -1 if it does not move. */
  private int[] at = new int[1024];

  private int moving;

  /** Scratch of the walks. */
  private int[] stack = new int[64];

  int size() {
    return moving;
  }

  /** The flow at node {@code h}. */
  int flowAt(int h) {
    return heap[h];
  }

  /** Makes room for {@code flows} dense indices; flows from {@code from} on do not move. */
  void admitted(int from, int flows) {
    if (flows > at.length) {
      at = Arrays.copyOf(at, Math.max(flows, 2 * at.length));
    }
    Arrays.fill(at, from, flows, -1);
  }

  /**
   * Sets moving flow {@code i}'s key, entering it if it did not move; with {@code mend} the heap's
   * order is restored around it, else the heap is a bag its caller {@link #rebuild}s.
   */
  void set(int i, double finishKey, boolean mend) {
    int h = at[i];
    if (h < 0) {
      if (moving == heap.length) {
        heap = Arrays.copyOf(heap, 2 * moving);
        key = Arrays.copyOf(key, 2 * moving);
      }
      h = moving++;
      heap[h] = i;
      at[i] = h;
    }
    key[h] = finishKey;
    if (mend) {
      update(h);
    }
  }

  /**
   * Takes flow {@code i} out of the heap: the last entry takes its place, and is sifted there if
   * {@code mend} (else the heap is a bag its caller rebuilds).
   */
  void remove(int i, boolean mend) {
    int h = at[i];
    at[i] = -1;
    int last = --moving;
    if (h != last) {
      heap[h] = heap[last];
      key[h] = key[last];
      at[heap[h]] = h;
      if (mend) {
        update(h);
      }
    }
  }

  /** The state's flow {@code from} took dense index {@code to} (the flow there finished). */
  void moved(int from, int to) {
    at[to] = at[from];
    if (at[to] >= 0) {
      heap[at[to]] = to;
    }
    at[from] = -1;
  }

  /** Restores the heap's order after changes made without mending. */
  void rebuild() {
    // From the last node's parent (none with fewer than two flows: floorDiv, not a division that
    // rounds -1 / ARITY up to node 0).
    for (int h = Math.floorDiv(moving - 2, ARITY); h >= 0; h--) {
      siftDown(h);
    }
  }

  /**
   * The event's length: {@code dt} (the next arrival or decision), or the next completion if
   * sooner, extended to the last completion within {@code (1 + coalesce)} of it but never past
   * {@code dt}. A flow finishes at {@code since[i] + left[i] / rate[i]}, worked out here rather
   * than at every change of its rate, from the same operands, so bit for bit what it was when
   * noted.
   */
  double until(
      double now, double dt, double coalesce, double[] since, double[] left, double[] rate) {
    if (moving == 0) {
      return dt;
    }
    // The earliest completion: a flow counts as finished no later than it finishes, so no flow
    // below a node that counts as finished after the best completion so far can beat it.
    double first = Double.POSITIVE_INFINITY;
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      int h = stack[--top];
      if (key[h] > first) {
        continue;
      }
      int i = heap[h];
      first = Math.min(first, since[i] + left[i] / rate[i]);
      top = push(h, top);
    }
    double firstDone = first - now;
    if (!(firstDone <= dt)) {
      return dt;
    }
    double limit = Math.min(dt, firstDone * (1 + coalesce));
    double end = now + limit;
    double last = firstDone;
    top = 0;
    stack[top++] = 0;
    while (top > 0) {
      int h = stack[--top];
      if (key[h] > end) {
        continue;
      }
      int i = heap[h];
      double t = since[i] + left[i] / rate[i] - now;
      if (t > last && t <= limit) {
        last = t;
      }
      top = push(h, top);
    }
    return last;
  }

  /** The moving flows that count as finished at {@code now}, in id order. */
  void finished(List<Flow> flows, double now, List<Flow> out) {
    out.clear();
    if (moving == 0) {
      return;
    }
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      int h = stack[--top];
      if (key[h] > now) {
        continue;
      }
      out.add(flows.get(heap[h]));
      top = push(h, top);
    }
    out.sort(BY_ID);
  }

  private static final Comparator<Flow> BY_ID = Comparator.comparingLong(Flow::id);

  /** Pushes heap node {@code h}'s children on the walk's stack; returns the new top. */
  private int push(int h, int top) {
    int c = ARITY * h + 1;
    int end = Math.min(c + ARITY, moving);
    if (c < end) {
      if (top + ARITY > stack.length) {
        stack = Arrays.copyOf(stack, 2 * stack.length);
      }
      for (; c < end; c++) {
        stack[top++] = c;
      }
    }
    return top;
  }

  /** Restores the heap's order around node {@code h}, whose key changed. */
  private void update(int h) {
    if (h > 0 && key[(h - 1) / ARITY] > key[h]) {
      siftUp(h);
    } else {
      siftDown(h);
    }
  }

  private void siftUp(int h) {
    int i = heap[h];
    double k = key[h];
    while (h > 0) {
      int p = (h - 1) / ARITY;
      if (key[p] <= k) {
        break;
      }
      heap[h] = heap[p];
      key[h] = key[p];
      at[heap[h]] = h;
      h = p;
    }
    heap[h] = i;
    key[h] = k;
    at[i] = h;
  }

  private void siftDown(int h) {
    int i = heap[h];
    double k = key[h];
    while (true) {
      int first = ARITY * h + 1;
      if (first >= moving) {
        break;
      }
      int c = first;
      for (int j = first + 1, end = Math.min(first + ARITY, moving); j < end; j++) {
        if (key[j] < key[c]) {
          c = j;
        }
      }
      if (key[c] >= k) {
        break;
      }
      heap[h] = heap[c];
      key[h] = key[c];
      at[heap[h]] = h;
      h = c;
    }
    heap[h] = i;
    key[h] = k;
    at[i] = h;
  }
}
