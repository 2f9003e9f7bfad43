package org.coflow.bench.sim;

import java.util.Arrays;
import java.util.List;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.Fabric;
import org.coflow.api.model.Flow;
import org.coflow.bench.trace.TraceCoflow;
import org.coflow.master.policy.Creek;
import org.coflow.master.policy.Schedule;

/**
 * {@link Simulator}'s event loop for {@link Creek}, run on (level, sender, receiver) groups instead
 * of flows.
 *
 * <p>Creek serves levels in strict priority and water-fills each level, so every flow of one level
 * on one (sender, receiver) pair gets the same rate, whatever its coflow ({@link Creek#groups}).
 * Such a group is simulated as one object, as {@link PairSimulator} does for fair sharing: it
 * counts the bytes each of its flows has been served since it was last idle ({@code service}), a
 * flow that joined it when that count was {@code s} with {@code b} bytes left finishes when it
 * reaches {@code s + b}, and each group keeps those thresholds in a heap. A flow changes group when
 * its (coflow, receiver) changes level, taking the bytes it has left with it. The bytes a coflow
 * receives are counted per (coflow, receiver), from the rate Creek gives it, which is what Creek's
 * levels read; a flow's own count is settled as it finishes. An event costs the active groups, the
 * active (coflow, receiver)s, the flows that change level or finish, and Creek's decision, not a
 * pass over the active flows.
 *
 * <p>It follows the per-flow loop's rules (events at arrivals, completions and Creek's decision
 * times; the completion window; a flow finishing once what it has left is within a nanosecond of
 * service or a billionth of its size). Bytes are counted per group and per (coflow, receiver)
 * rather than per flow, so completion times may differ from the per-flow loop's in the last digits
 * ({@code SimulatorDifferentialTest} bounds the difference).
 */
final class LevelPairSimulator {
  private final List<TraceCoflow> coflows;
  private final double bandwidth;
  private final double coalesce;
  private final Model model;
  private final int ports;
  private final int pairs;

  // Per group (key level * ports^2 + sender * ports + receiver): a min-heap of its flows by
  // threshold, and its position + 1 among the active groups (0 when idle).
  private final int[][] heap;
  private final int[] slotOf;

  // Per active group, by position: key, level, ports, flows, per-flow rate, per-flow service since
  // it was last idle, its smallest threshold and that flow's size (the per-event loops stay on
  // these arrays), and the time until its first flow finishes in the event under way.
  private int[] key = new int[256];
  private int[] level = new int[256];
  private int[] src = new int[256];
  private int[] dst = new int[256];
  private int[] count = new int[256];
  private double[] rate = new double[256];
  private double[] service = new double[256];
  private double[] first = new double[256];
  private double[] firstSize = new double[256];
  private double[] untilFirst = new double[256];
  private int activeSize;

  // Per flow, by id (the state numbers flows from 0 in admission order): the flow, its size, its
  // threshold in its group's service, its group key (-1 before its first), its heap position.
  private Flow[] flow = new Flow[1024];
  private double[] size = new double[1024];
  private double[] threshold = new double[1024];
  private int[] groupOf = new int[1024];
  private int[] heapAt = new int[1024];

  /** Per (coflow number * ports + receiver): the level its flows' groups are at, -1 for none. */
  private final int[] placedAt;

  private int[] stack = new int[64];

  LevelPairSimulator(
      List<TraceCoflow> coflows, int ports, double bandwidth, double coalesce, Model model) {
    this.coflows = coflows;
    this.ports = ports;
    this.pairs = ports * ports;
    this.bandwidth = bandwidth;
    this.coalesce = coalesce;
    this.model = model;
    this.heap = new int[Creek.MAX_LEVELS * pairs][];
    this.slotOf = new int[Creek.MAX_LEVELS * pairs];
    this.placedAt = new int[coflows.size() * ports];
    Arrays.fill(placedAt, -1);
  }

  SimResult run(
      Creek policy,
      Simulator.Coflows meta,
      InvariantChecker checker,
      ProgressListener progress,
      long wallStart) {
    int n = coflows.size();
    Fabric fabric = Fabric.uniform(ports, bandwidth);
    ClusterState state = new ClusterState(fabric);
    Creek.Groups groups = policy.groups();
    policy.movesAsDecided();
    double[] arrival = meta.arrival();
    double[] cct = new double[n];
    double[] delivered = new double[n];
    int[] finishing = new int[64];
    double lastArrival = n == 0 ? 0 : arrival[n - 1];
    double now = 0;
    int next = 0;
    int finished = 0;
    long events = 0;
    while (next < n || !state.flows().isEmpty()) {
      if (state.flows().isEmpty() && arrival[next] > now) {
        now = arrival[next];
      }
      while (next < n && arrival[next] <= now) {
        admit(state, coflows.get(next), next, arrival[next]);
        next++;
      }
      Schedule schedule = policy.schedule(state, now);
      if (groups.perFlow()) {
        throw new IllegalStateException(
            "creek at t="
                + now
                + "s left capacity at both ends of a flow, which its levels' water-filling never"
                + " does: the groups do not describe this decision");
      }
      events++;
      place(state, groups);
      double firstDone = Double.POSITIVE_INFINITY;
      for (int j = 0; j < activeSize; j++) {
        double r = groups.rate(level[j], src[j], dst[j]);
        rate[j] = r;
        double t = r > 0 ? (first[j] - service[j]) / r : Double.POSITIVE_INFINITY;
        untilFirst[j] = t;
        firstDone = Math.min(firstDone, t);
      }
      if (checker != null) {
        checker.checkPairs(fabric, src, dst, count, rate, activeSize, now, policy.name());
      }
      double dt = next < n ? arrival[next] - now : Double.POSITIVE_INFINITY;
      double decision = policy.nextDecisionTime(state, schedule, now);
      if (decision < now + dt) {
        dt = Math.max(decision - now, FluidStep.SECONDS);
      }
      if (firstDone <= dt) {
        double limit = Math.min(dt, firstDone * (1 + coalesce));
        dt = firstDone;
        for (int j = 0; j < activeSize; j++) {
          if (untilFirst[j] <= limit) {
            dt = Math.max(dt, latestWithin(j, limit));
          }
        }
      }
      if (dt == Double.POSITIVE_INFINITY) {
        throw Simulator.stalled(policy.name(), now, state.flows().size());
      }
      // The bytes of the event per (coflow, receiver), at the rate its groups give it.
      for (Coflow c : state.coflows()) {
        for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
          int r = c.receiver(rs);
          double to = groups.rateTo(c, r);
          if (to > 0) {
            state.addReceived(c, r, to * dt);
          }
        }
      }
      // Serve every group for dt; take out the flows that finish within it, and take back the
      // bytes counted for the part of dt they idle.
      int done = 0;
      for (int j = 0; j < activeSize; j++) {
        double r = rate[j];
        if (r <= 0) {
          continue;
        }
        double moved = r * dt;
        while (count[j] > 0) {
          double left = first[j] - service[j];
          if (left - moved > r * FluidStep.SECONDS && left - moved > 1e-9 * firstSize[j]) {
            break;
          }
          int f = heap[key[j]][0];
          pop(j);
          if (done == finishing.length) {
            finishing = Arrays.copyOf(finishing, 2 * done);
          }
          finishing[done++] = f;
          threshold[f] = left - moved; // out of its group: now the bytes it idles for
        }
        service[j] += moved;
      }
      now += dt;
      // Flows leave in id order, as in the per-flow loop.
      Arrays.sort(finishing, 0, done);
      for (int k = 0; k < done; k++) {
        Flow f = flow[finishing[k]];
        state.addReceived(f.coflow(), f.dst(), threshold[finishing[k]]);
        state.settleSent(f.index(), f.size() - state.sentAt(f.index()));
        flow[finishing[k]] = null;
        if (state.finishFlow(f, now)) {
          int i = (int) f.coflow().seq();
          cct[i] = model.recorded(arrival[i], now);
          delivered[i] = f.coflow().bytesSent();
          finished++;
        }
      }
      for (int j = activeSize - 1; j >= 0; j--) {
        if (count[j] == 0) {
          deactivate(j);
        }
      }
      policy.recycle(schedule);
      progress.progress(now, lastArrival, finished, n);
    }
    double wall = (System.nanoTime() - wallStart) / 1e9;
    return meta.result(policy.name(), cct, delivered, events, wall, false);
  }

  /**
   * Puts the flows of every (coflow, receiver) whose level changed, or that has none yet, into the
   * groups of their new level, with the bytes they have left.
   */
  private void place(ClusterState state, Creek.Groups groups) {
    List<Flow> active = state.flows();
    for (Coflow c : state.coflows()) {
      int base = (int) c.seq() * ports;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        if (c.activeFlowsTo(r) == 0) {
          continue;
        }
        int k = groups.levelOf(c, r);
        if (placedAt[base + r] == k) {
          continue;
        }
        placedAt[base + r] = k;
        int[] positions = c.activePositionsTo(r);
        for (int p = 0, m = c.activeFlowsTo(r); p < m; p++) {
          int at = positions[p];
          Flow f = active.get(c.activeIndex(at));
          move((int) f.id(), k * pairs + c.activeSrc(at) * ports + r);
        }
      }
    }
    for (int j = activeSize - 1; j >= 0; j--) {
      if (count[j] == 0) {
        deactivate(j);
      }
    }
  }

  /** Moves flow {@code f} to group {@code to} (from its group, if it has one). */
  private void move(int f, int to) {
    int from = groupOf[f];
    double left = size[f];
    if (from >= 0) {
      int j = slotOf[from] - 1;
      left = threshold[f] - service[j];
      remove(j, heapAt[f]);
    }
    int j = slotOf[to] - 1;
    if (j < 0) {
      j = activate(to);
    }
    groupOf[f] = to;
    threshold[f] = service[j] + left;
    push(j, f);
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

  private void admit(ClusterState state, TraceCoflow tc, int seq, double now) {
    Coflow c = new Coflow(String.valueOf(tc.id()), seq, now, 1.0);
    state.addCoflow(c);
    for (int r = 0; r < tc.reducers().length; r++) {
      double bytes = tc.flowBytes(r);
      for (int m : tc.mappers()) {
        Flow f = state.addFlow(c, m, tc.reducers()[r], bytes, now);
        int id = (int) f.id();
        if (id >= flow.length) {
          int len = Math.max(id + 1, 2 * flow.length);
          flow = Arrays.copyOf(flow, len);
          size = Arrays.copyOf(size, len);
          threshold = Arrays.copyOf(threshold, len);
          groupOf = Arrays.copyOf(groupOf, len);
          heapAt = Arrays.copyOf(heapAt, len);
        }
        flow[id] = f;
        size[id] = bytes;
        groupOf[id] = -1;
      }
    }
  }

  private int activate(int group) {
    if (activeSize == key.length) {
      int len = 2 * activeSize;
      key = Arrays.copyOf(key, len);
      level = Arrays.copyOf(level, len);
      src = Arrays.copyOf(src, len);
      dst = Arrays.copyOf(dst, len);
      count = Arrays.copyOf(count, len);
      rate = Arrays.copyOf(rate, len);
      service = Arrays.copyOf(service, len);
      first = Arrays.copyOf(first, len);
      firstSize = Arrays.copyOf(firstSize, len);
      untilFirst = Arrays.copyOf(untilFirst, len);
    }
    int j = activeSize++;
    slotOf[group] = j + 1;
    key[j] = group;
    level[j] = group / pairs;
    int pair = group - level[j] * pairs;
    src[j] = pair / ports;
    dst[j] = pair - src[j] * ports;
    count[j] = 0;
    rate[j] = 0;
    service[j] = 0; // idle until now: count service afresh
    if (heap[group] == null) {
      heap[group] = new int[4];
    }
    return j;
  }

  /** Removes idle active group j, moving the last active group into its position. */
  private void deactivate(int j) {
    slotOf[key[j]] = 0;
    int last = --activeSize;
    if (j != last) {
      key[j] = key[last];
      level[j] = level[last];
      src[j] = src[last];
      dst[j] = dst[last];
      count[j] = count[last];
      rate[j] = rate[last];
      service[j] = service[last];
      first[j] = first[last];
      firstSize[j] = firstSize[last];
      untilFirst[j] = untilFirst[last];
      slotOf[key[j]] = j + 1;
    }
  }

  private void push(int j, int f) {
    int g = key[j];
    int n = count[j];
    if (n == heap[g].length) {
      heap[g] = Arrays.copyOf(heap[g], 2 * n);
    }
    count[j] = n + 1;
    up(heap[g], n, f);
    atTop(j);
  }

  /** Caches the smallest threshold of active group j, which has flows, and its flow's size. */
  private void atTop(int j) {
    int f = heap[key[j]][0];
    first[j] = threshold[f];
    firstSize[j] = size[f];
  }

  private void pop(int j) {
    remove(j, 0);
  }

  /** Takes the flow at heap position {@code i} out of active group j. */
  private void remove(int j, int i) {
    int[] h = heap[key[j]];
    int n = --count[j];
    int gone = h[i];
    groupOf[gone] = -1;
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
    }
  }

  /** Places flow f at heap position i or above. */
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

  /** Places flow f at heap position i or below, in a heap of n. */
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

  /** Heap order: by threshold, ties by flow id. */
  private boolean before(int a, int b) {
    return threshold[a] < threshold[b] || (threshold[a] == threshold[b] && a < b);
  }
}
