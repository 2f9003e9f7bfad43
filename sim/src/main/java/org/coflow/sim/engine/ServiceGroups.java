package org.coflow.sim.engine;

import java.util.Arrays;
import org.coflow.core.policy.PairShares;

/**
 * Flows simulated by group, for the event loops where every flow of a group gets the same rate
 * ({@link PairSimulator}: fair sharing by (sender, receiver) pair; {@link LevelPairSimulator}:
 * Creek by (level, sender, receiver)).
 *
 * <p>The virtual-time trick of fair-queueing simulators: a group counts the bytes each of its flows
 * has been served since it was last idle ({@code service}); a flow that joins it when that count is
 * {@code s}, with {@code b} bytes left, finishes when the count reaches {@code s + b}, its
 * threshold. Each group keeps its flows in a min-heap by threshold (ties by flow number), and its
 * smallest threshold and that flow's size in flat arrays, so that the loops over the active groups
 * stay on flat arrays. Flows are numbered by the loop from 0 (in admission order); groups by a key
 * below the number given at construction.
 */
final class ServiceGroups {
  // Per group key: its flows' heap, and its position + 1 among the active groups (0 when idle).
  private final int[][] heap;
  private final int[] slotOf;

  // Per active group, by position (the per-event loops run over these arrays in order): key,
  // ports, flows, per-flow rate, per-flow service since it was last idle, and smallest threshold
  // and its flow's size.
  int[] key = new int[256];
  int[] src = new int[256];
  int[] dst = new int[256];
  int[] count = new int[256];
  double[] rate = new double[256];
  double[] service = new double[256];
  double[] first = new double[256];
  double[] firstSize = new double[256];
  int active;

  // Per flow, by number: size, threshold in its group's service, group key (-1: none), heap
  // position.
  private double[] size = new double[1024];
  private double[] threshold = new double[1024];
  private int[] groupOf = new int[1024];
  private int[] heapAt = new int[1024];

  private int[] stack = new int[64];

  /** The largest flow ever registered ({@link #addFlow}), for the size margin of {@link #rate}. */
  private double largest;

  // The event under way: its horizon and completion window, the first completion so far, what
  // rate's test for a near group multiplies a group's rate by (the event's bound so far with its
  // margins, worked out again only when the first completion moves) and adds (a billionth of the
  // largest flow), and the near groups with the time until each one's first flow finishes.
  private double horizon;
  private double coalesce;
  private double firstDone;
  private double reach;
  private double margin;
  private int[] nearGroup = new int[256];
  private double[] nearUntil = new double[256];
  private int near;

  /** Whether a group has lost its last flow since the last {@link #deactivateIdle}. */
  private boolean emptied;

  ServiceGroups(int keys) {
    heap = new int[keys][];
    slotOf = new int[keys];
  }

  /** Registers flow {@code f} (the next number, or a lower one reused), in no group yet. */
  void addFlow(int f, double bytes) {
    if (f >= size.length) {
      int len = Math.max(f + 1, 2 * size.length);
      size = Arrays.copyOf(size, len);
      threshold = Arrays.copyOf(threshold, len);
      groupOf = Arrays.copyOf(groupOf, len);
      heapAt = Arrays.copyOf(heapAt, len);
    }
    size[f] = bytes;
    groupOf[f] = -1;
    if (bytes > largest) {
      largest = bytes;
    }
  }

  /**
   * The position of the active group {@code group}, activating it if idle; a flow must then join it
   * ({@link #join}), since {@link #deactivateIdle} looks for groups that lost their last flow.
   */
  int slot(int group, int from, int to) {
    int j = slotOf[group] - 1;
    if (j >= 0) {
      return j;
    }
    if (active == key.length) {
      int len = 2 * active;
      key = Arrays.copyOf(key, len);
      src = Arrays.copyOf(src, len);
      dst = Arrays.copyOf(dst, len);
      count = Arrays.copyOf(count, len);
      rate = Arrays.copyOf(rate, len);
      service = Arrays.copyOf(service, len);
      first = Arrays.copyOf(first, len);
      firstSize = Arrays.copyOf(firstSize, len);
    }
    j = active++;
    slotOf[group] = j + 1;
    key[j] = group;
    src[j] = from;
    dst[j] = to;
    count[j] = 0;
    rate[j] = 0;
    service[j] = 0; // idle until now: count service afresh
    if (heap[group] == null) {
      heap[group] = new int[4];
    }
    return j;
  }

  /** Removes the active groups without flows (the last active group takes a freed position). */
  void deactivateIdle() {
    if (!emptied) {
      return;
    }
    emptied = false;
    for (int j = active - 1; j >= 0; j--) {
      if (count[j] == 0) {
        deactivate(j);
      }
    }
  }

  private void deactivate(int j) {
    slotOf[key[j]] = 0;
    int last = --active;
    if (j != last) {
      key[j] = key[last];
      src[j] = src[last];
      dst[j] = dst[last];
      count[j] = count[last];
      rate[j] = rate[last];
      service[j] = service[last];
      first[j] = first[last];
      firstSize[j] = firstSize[last];
      slotOf[key[j]] = j + 1;
    }
  }

  /** Puts flow {@code f}, with {@code left} bytes to send, into active group j. */
  void join(int j, int f, double left) {
    int g = key[j];
    int n = count[j];
    if (n == heap[g].length) {
      heap[g] = Arrays.copyOf(heap[g], 2 * n);
    }
    groupOf[f] = g;
    threshold[f] = service[j] + left;
    count[j] = n + 1;
    up(heap[g], n, f);
    atTop(j);
  }

  /** Takes flow {@code f} out of its group; returns the bytes it has left (its size if none). */
  double leave(int f) {
    int g = groupOf[f];
    if (g < 0) {
      return size[f];
    }
    int j = slotOf[g] - 1;
    double left = threshold[f] - service[j];
    remove(j, heapAt[f]);
    return left;
  }

  /** Takes out and returns the flow with the smallest threshold of active group j. */
  int pop(int j) {
    int f = heap[key[j]][0];
    remove(j, 0);
    return f;
  }

  /** The size of flow {@code f}. */
  double size(int f) {
    return size[f];
  }

  private void remove(int j, int i) {
    int[] h = heap[key[j]];
    int n = --count[j];
    groupOf[h[i]] = -1;
    if (i < n) {
      int last = h[n];
      if (i > 0 && before(last, h[(i - 1) / 2])) {
        up(h, i, last);
      } else {
        down(h, i, last, n);
      }
    }
    if (n > 0) {
      atTop(j);
    } else {
      emptied = true;
    }
  }

  private void atTop(int j) {
    int f = heap[key[j]][0];
    first[j] = threshold[f];
    firstSize[j] = size[f];
  }

  private void up(int[] h, int i, int f) {
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!before(f, h[parent])) {
        break;
      }
      h[i] = h[parent];
      heapAt[h[i]] = i;
      i = parent;
    }
    h[i] = f;
    heapAt[f] = i;
  }

  private void down(int[] h, int i, int f, int n) {
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) {
        break;
      }
      if (child + 1 < n && before(h[child + 1], h[child])) {
        child++;
      }
      if (!before(h[child], f)) {
        break;
      }
      h[i] = h[child];
      heapAt[h[i]] = i;
      i = child;
    }
    h[i] = f;
    heapAt[f] = i;
  }

  private boolean before(int a, int b) {
    return threshold[a] < threshold[b] || (threshold[a] == threshold[b] && a < b);
  }

  /**
   * Starts an event's pass over the active groups (the rate pass), for an event no longer than
   * {@code horizon} (the next arrival or decision) and the finite completion window {@code
   * coalesce}. An event is then: this, {@link #rateByPorts} or {@link #rateByKey} (or {@link #rate}
   * for every active group in position order), {@link #until}, and {@link #serve}, with no group
   * joined, left or deactivated in between.
   */
  void startRates(double horizon, double coalesce) {
    this.horizon = horizon;
    this.coalesce = coalesce;
    firstDone = Double.POSITIVE_INFINITY;
    reach = reach();
    margin = 1e-9 * largest;
    near = 0;
  }

  /** The event's bound so far (see {@link #rate}) times {@code 1 + 1e-6}, plus a nanosecond. */
  private double reach() {
    double bound = Math.min(horizon, firstDone * (1 + coalesce));
    return bound * (1 + 1e-6) + FluidStep.SECONDS;
  }

  /**
   * Sets the per-flow rate of active group j for the event under way. A group whose first flow may
   * finish within the event is listed as near, with the time until that flow finishes: the event's
   * length ({@link #until}) and the flows finishing in it ({@link #serve}) come from the near
   * groups only. The bound a group is listed under only falls as the pass goes on, so a group
   * listed under an earlier bound is checked again, exactly, later: by that time against the
   * window's limit in {@link #until} and by the per-flow loop's test in {@link #serve}. Rates are 0
   * or more and what a first flow has left is 0 or more.
   *
   * <p>The per-group form of the rate pass, which {@link #rateByPorts} and {@link #rateByKey} run
   * as one loop; tests hold them to it.
   */
  void rate(int j, double r) {
    rate[j] = r;
    if (!(r > 0)) {
      return;
    }
    // The event is no longer than the bound (reach); a flow finishes in it if what it has left is
    // within a nanosecond of service or a billionth of its size of what the event moves (a
    // relative margin of 1e-6 covers the rounding of both sides). A group past it cannot be the
    // first to finish either, unless past the horizon too (where the first completion's time does
    // not matter), so its time is not worked out. The size margin is taken from the largest flow
    // rather than the group's first (not read here: the pass stays on the arrays it needs), so it
    // lists a group at most a billionth of the largest flow further out (2.6 bytes on the Facebook
    // trace). A group listed that the group's own margin would not list finishes no flow (serve's
    // own test), does not reach the window's limit (until's), and lowers the first completion only
    // past the horizon, where it does not matter and the bound stays the horizon: the event is the
    // same. The loops below make the same test.
    double left = first[j] - service[j];
    if (left <= r * reach + margin) {
      near(j, left / r);
    }
  }

  /**
   * {@link #rate} of every active group in position order at the rate its ports' levels give (the
   * lesser of its sender's uplink level and its receiver's downlink level): fair sharing's rates,
   * in one loop over the groups' arrays held in locals. A call per group from the event loop left
   * that loop reading every array and the bound through fields at every group (the rare listing may
   * grow an array); in one loop, with the listing a method of its own that returns the new bound,
   * fair sharing's whole trace runs 1.15x faster, Creek's 1.2x.
   */
  void rateByPorts(PairShares shares) {
    int[] from = src;
    int[] to = dst;
    double[] rates = rate;
    double[] firsts = first;
    double[] served = service;
    double bound = reach;
    double extra = margin;
    for (int j = 0, n = active; j < n; j++) {
      double r = Math.min(shares.upLevel(from[j]), shares.downLevel(to[j]));
      rates[j] = r;
      if (r > 0) {
        double left = firsts[j] - served[j];
        if (left <= r * bound + extra) {
          bound = near(j, left / r);
        }
      }
    }
  }

  /**
   * {@link #rate} of every active group in position order at {@code byKey[key]}, its key's rate
   * (Creek's rates by (level, sender, receiver)), in one loop as {@link #rateByPorts}.
   */
  void rateByKey(double[] byKey) {
    int[] keys = key;
    double[] rates = rate;
    double[] firsts = first;
    double[] served = service;
    double bound = reach;
    double extra = margin;
    for (int j = 0, n = active; j < n; j++) {
      double r = byKey[keys[j]];
      rates[j] = r;
      if (r > 0) {
        double left = firsts[j] - served[j];
        if (left <= r * bound + extra) {
          bound = near(j, left / r);
        }
      }
    }
  }

  /**
   * Lists active group j as near, its first flow finishing in {@code t}; returns the bound the
   * following groups are tested against (lower if this is the first completion so far).
   */
  private double near(int j, double t) {
    if (t < firstDone) {
      firstDone = t;
      reach = reach();
    }
    if (near == nearGroup.length) {
      nearGroup = Arrays.copyOf(nearGroup, 2 * near);
      nearUntil = Arrays.copyOf(nearUntil, 2 * near);
    }
    nearGroup[near] = j;
    nearUntil[near++] = t;
    return reach;
  }

  /** How many groups the event's rate pass listed as near (for tests). */
  int nearCount() {
    return near;
  }

  /**
   * The event's length, after the event's rate pass: the horizon, or the first completion if
   * sooner, extended to the last completion within {@code (1 + coalesce)} of it but never past the
   * horizon.
   */
  double until() {
    double dt = horizon;
    if (firstDone <= dt) {
      double limit = Math.min(dt, firstDone * (1 + coalesce));
      dt = firstDone;
      // A group whose first flow finishes past the limit has none within it (thresholds only
      // grow down the heap), and every group whose first flow finishes within it is near.
      for (int i = 0; i < near; i++) {
        if (nearUntil[i] <= limit) {
          dt = Math.max(dt, latestWithin(nearGroup[i], limit));
        }
      }
    }
    return dt;
  }

  /** The longest time to completion within {@code limit} among the flows of active group j. */
  private double latestWithin(int j, double limit) {
    double bound = service[j] + rate[j] * limit;
    double latest = 0;
    int[] h = heap[key[j]];
    int n = count[j];
    if (stack.length < 2 * n + 2) {
      stack = new int[2 * n + 2];
    }
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      int i = stack[--top];
      if (i >= n || threshold[h[i]] > bound) {
        continue;
      }
      double t = (threshold[h[i]] - service[j]) / rate[j];
      if (t <= limit) {
        latest = Math.max(latest, t);
      }
      stack[top++] = 2 * i + 1;
      stack[top++] = 2 * i + 2;
    }
    return latest;
  }

  /**
   * Serves every active group for {@code dt} (at most the length {@link #until} gave): the flows
   * that finish within it (what they have left is within a nanosecond of service or a billionth of
   * their size, as in the per-flow loop) leave their group and are handed to {@code done} with the
   * bytes they had left. Only the near groups can have such flows; the others' service just grows.
   */
  void serve(double dt, Finished done) {
    for (int i = 0; i < near; i++) {
      int j = nearGroup[i];
      double r = rate[j];
      double moved = r * dt;
      while (count[j] > 0) {
        double left = first[j] - service[j];
        if (left - moved > r * FluidStep.SECONDS && left - moved > 1e-9 * firstSize[j]) {
          break;
        }
        done.finished(j, pop(j), left);
      }
    }
    for (int j = 0; j < active; j++) {
      service[j] += rate[j] * dt;
    }
  }

  /** Where {@link #serve} hands a flow that finishes. */
  interface Finished {
    void finished(int group, int flow, double left);
  }
}
