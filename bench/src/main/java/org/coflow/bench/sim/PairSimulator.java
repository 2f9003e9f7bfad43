package org.coflow.bench.sim;

import java.util.Arrays;
import java.util.List;
import org.coflow.api.model.Fabric;
import org.coflow.bench.trace.TraceCoflow;
import org.coflow.master.policy.FairSharing;
import org.coflow.master.policy.PairShares;

/**
 * {@link Simulator}'s event loop for per-flow fair sharing, run on (sender, receiver) pairs instead
 * of flows.
 *
 * <p>Max-min fair sharing gives every active flow on one pair the same rate, whatever its coflow,
 * so a pair is simulated as one object with a number of flows ({@link FairSharing#pairShares}, the
 * same water-filling the policy's per-flow schedule uses, kept up to date as flows come and go).
 * Within a pair, flows finish by the virtual-time trick of fair-queueing simulators: the pair
 * counts the bytes each of its flows has been served since the pair was last idle ({@code
 * service}), a flow admitted when that count was {@code s} finishes when it reaches {@code s} plus
 * the flow's size, and each pair keeps those thresholds in a heap. An event costs the active pairs
 * (at most ports squared) and the flows that finish in it, not the active flows.
 *
 * <p>It follows the per-flow loop's rules: events at arrivals and completions, flows completing
 * within the completion window of the first one completing together at the last one's time, a flow
 * finishing once what it has left is within a nanosecond of service or a billionth of its size.
 * Bytes are counted per pair rather than per flow, so completion times may differ from the per-flow
 * loop's in the last digits ({@code PairSimulatorTest} bounds the difference).
 */
final class PairSimulator {
  private final List<TraceCoflow> coflows;
  private final double bandwidth;
  private final double coalesce;
  private final Model model;
  private final int ports;

  // Per pair (key sender * ports + receiver): a min-heap of (threshold, flow) of its active flows,
  // and its position + 1 among the active pairs (0 when idle).
  private final double[][] heapKey;
  private final int[][] heapFlow;
  private final int[] slotOf;

  // Per active pair, by position (the per-event loops run over these arrays in order): its key,
  // ports, number of active flows, per-flow rate, per-flow service since it was last idle, and
  // smallest threshold and its flow's size.
  private int[] key;
  private int[] src;
  private int[] dst;
  private int[] count;
  private double[] rate;
  private double[] service;
  private double[] first;
  private double[] firstSize;
  private int activeSize;

  /** Per active pair, in the event under way: the time until its first flow finishes. */
  private final double[] untilFirst;

  // Per flow (numbered in admission order): size and coflow.
  private double[] flowSize = new double[1024];
  private int[] flowCoflow = new int[1024];
  private int flows;

  PairSimulator(
      List<TraceCoflow> coflows, int ports, double bandwidth, double coalesce, Model model) {
    this.coflows = coflows;
    this.ports = ports;
    this.bandwidth = bandwidth;
    this.coalesce = coalesce;
    this.model = model;
    int pairs = ports * ports;
    heapKey = new double[pairs][];
    heapFlow = new int[pairs][];
    slotOf = new int[pairs];
    key = new int[pairs];
    src = new int[pairs];
    dst = new int[pairs];
    count = new int[pairs];
    rate = new double[pairs];
    service = new double[pairs];
    first = new double[pairs];
    firstSize = new double[pairs];
    untilFirst = new double[pairs];
  }

  SimResult run(
      FairSharing policy,
      Simulator.Coflows meta,
      InvariantChecker checker,
      ProgressListener progress,
      long wallStart) {
    int n = coflows.size();
    double[] arrival = meta.arrival();
    double[] cct = new double[n];
    double[] delivered = new double[n];
    int[] unfinished = new int[n];
    Fabric fabric = Fabric.uniform(ports, bandwidth);
    int[] finishing = new int[64];
    double lastArrival = n == 0 ? 0 : arrival[n - 1];
    double now = 0;
    int next = 0;
    int finished = 0;
    long events = 0;
    int activeFlows = 0;
    shares = policy.pairShares(fabric);
    while (next < n || activeFlows > 0) {
      if (activeFlows == 0 && arrival[next] > now) {
        now = arrival[next];
      }
      while (next < n && arrival[next] <= now) {
        activeFlows += admit(coflows.get(next), next, unfinished);
        next++;
      }
      // The policy's water-filling on the active pairs, and the next completion.
      int pairs = activeSize;
      shares.fill();
      events++;
      double firstDone = Double.POSITIVE_INFINITY;
      for (int j = 0; j < pairs; j++) {
        double r = Math.min(shares.upLevel(src[j]), shares.downLevel(dst[j]));
        rate[j] = r;
        double t = r > 0 ? (first[j] - service[j]) / r : Double.POSITIVE_INFINITY;
        untilFirst[j] = t;
        firstDone = Math.min(firstDone, t);
      }
      if (checker != null) {
        checker.checkPairs(fabric, src, dst, count, rate, pairs, now, policy.name());
      }
      // Extended over the completion window but not past the next arrival.
      double dt = next < n ? arrival[next] - now : Double.POSITIVE_INFINITY;
      if (firstDone <= dt) {
        double limit = Math.min(dt, firstDone * (1 + coalesce));
        dt = firstDone;
        // A pair whose first flow finishes past the limit has none within it (the heap's
        // thresholds only grow): only the others are walked.
        for (int j = 0; j < pairs; j++) {
          if (untilFirst[j] <= limit) {
            dt = Math.max(dt, latestWithin(j, limit));
          }
        }
      }
      if (dt == Double.POSITIVE_INFINITY) {
        throw Simulator.stalled(policy.name(), now, activeFlows);
      }
      // Serve every pair for dt; take out the flows that finish within it.
      int done = 0;
      for (int j = 0; j < pairs; j++) {
        double r = rate[j];
        if (r <= 0) {
          continue;
        }
        double moved = r * dt;
        while (count[j] > 0) {
          double left = first[j] - service[j] - moved;
          if (left > r * FluidStep.SECONDS && left > 1e-9 * firstSize[j]) {
            break;
          }
          int f = heapFlow[key[j]][0];
          pop(j);
          shares.add(src[j], dst[j], -1);
          if (done == finishing.length) {
            finishing = Arrays.copyOf(finishing, 2 * done);
          }
          finishing[done++] = f;
        }
        service[j] += moved;
      }
      now += dt;
      // Flows leave in admission order (the per-flow loop finishes them by id, the same order).
      Arrays.sort(finishing, 0, done);
      for (int k = 0; k < done; k++) {
        int f = finishing[k];
        int c = flowCoflow[f];
        delivered[c] += flowSize[f];
        activeFlows--;
        if (--unfinished[c] == 0) {
          cct[c] = model.recorded(arrival[c], now);
          finished++;
        }
      }
      for (int j = activeSize - 1; j >= 0; j--) {
        if (count[j] == 0) {
          deactivate(j);
        }
      }
      progress.progress(now, lastArrival, finished, n);
    }
    double wall = (System.nanoTime() - wallStart) / 1e9;
    return meta.result(policy.name(), cct, delivered, events, wall, false);
  }

  /** The longest time to completion within {@code limit} among the flows of active pair j. */
  private double latestWithin(int j, double limit) {
    // Thresholds are in a heap: walk the part of it within the limit (children are larger).
    double bound = service[j] + rate[j] * limit;
    double latest = 0;
    double[] keys = heapKey[key[j]];
    int size = count[j];
    if (stack.length < 2 * size + 2) {
      stack = new int[2 * size + 2];
    }
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      int i = stack[--top];
      if (i >= size || keys[i] > bound) {
        continue;
      }
      double t = (keys[i] - service[j]) / rate[j];
      if (t <= limit) {
        latest = Math.max(latest, t);
      }
      stack[top++] = 2 * i + 1;
      stack[top++] = 2 * i + 2;
    }
    return latest;
  }

  private int[] stack = new int[64];
  private PairShares shares;

  /** Admits a coflow's flows (M mappers x R reducers) at their pairs; returns how many. */
  private int admit(TraceCoflow tc, int seq, int[] unfinished) {
    int added = 0;
    for (int r = 0; r < tc.reducers().length; r++) {
      double size = tc.flowBytes(r);
      for (int m : tc.mappers()) {
        int pair = m * ports + tc.reducers()[r];
        int j = slotOf[pair] - 1;
        if (j < 0) {
          j = activate(pair, m, tc.reducers()[r]);
        }
        int f = flows++;
        if (f == flowSize.length) {
          flowSize = Arrays.copyOf(flowSize, 2 * f);
          flowCoflow = Arrays.copyOf(flowCoflow, 2 * f);
        }
        flowSize[f] = size;
        flowCoflow[f] = seq;
        push(j, service[j] + size, f);
        shares.add(m, tc.reducers()[r], 1);
        added++;
      }
    }
    unfinished[seq] = added;
    return added;
  }

  private int activate(int pair, int from, int to) {
    int j = activeSize++;
    slotOf[pair] = j + 1;
    key[j] = pair;
    src[j] = from;
    dst[j] = to;
    count[j] = 0;
    rate[j] = 0;
    service[j] = 0; // idle until now: count service afresh
    return j;
  }

  /** Removes idle active pair j, moving the last active pair into its position. */
  private void deactivate(int j) {
    slotOf[key[j]] = 0;
    int last = --activeSize;
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

  private void push(int j, double threshold, int flow) {
    int pair = key[j];
    int size = count[j];
    if (heapKey[pair] == null) {
      heapKey[pair] = new double[4];
      heapFlow[pair] = new int[4];
    } else if (size == heapKey[pair].length) {
      heapKey[pair] = Arrays.copyOf(heapKey[pair], 2 * size);
      heapFlow[pair] = Arrays.copyOf(heapFlow[pair], 2 * size);
    }
    double[] keys = heapKey[pair];
    int[] ids = heapFlow[pair];
    int i = size;
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!before(threshold, flow, keys[parent], ids[parent])) {
        break;
      }
      keys[i] = keys[parent];
      ids[i] = ids[parent];
      i = parent;
    }
    keys[i] = threshold;
    ids[i] = flow;
    count[j] = size + 1;
    first[j] = keys[0];
    firstSize[j] = flowSize[ids[0]];
  }

  private void pop(int j) {
    double[] keys = heapKey[key[j]];
    int[] ids = heapFlow[key[j]];
    int size = --count[j];
    double k = keys[size];
    int id = ids[size];
    int i = 0;
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && before(keys[child + 1], ids[child + 1], keys[child], ids[child])) {
        child++;
      }
      if (!before(keys[child], ids[child], k, id)) {
        break;
      }
      keys[i] = keys[child];
      ids[i] = ids[child];
      i = child;
    }
    keys[i] = k;
    ids[i] = id;
    first[j] = keys[0];
    firstSize[j] = flowSize[ids[0]];
  }

  /** Heap order: by threshold, ties by flow number. */
  private static boolean before(double keyA, int idA, double keyB, int idB) {
    return keyA < keyB || (keyA == keyB && idA < idB);
  }
}
