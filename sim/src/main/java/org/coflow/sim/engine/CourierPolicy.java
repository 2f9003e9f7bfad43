package org.coflow.sim.engine;

import java.util.Arrays;
import org.coflow.core.merge.Merge;
import org.coflow.core.merge.SelectAndSplit;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.PolicyType;
import org.coflow.core.policy.Allocator;
import org.coflow.core.policy.Backfill;
import org.coflow.core.policy.ForwardingPolicy;
import org.coflow.core.policy.PortBudget;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;

/**
 * Any policy with Courier's merging in front of the fabric (seed 003, Alg. 1-3), as the agents
 * apply it: each receiving host's agent (the fetching side opens connections) merges the flows it
 * fetches into one unified flow per source host, and holds at most {@code maxNum} connections, the
 * most important unified flows first.
 *
 * <p>In a fluid big-switch model, merging itself changes nothing for RATE policies (a unified flow
 * carries the sum of its flows' rates and demultiplexes in proportion) and splitting changes
 * nothing at all (there is one path); what changes CCTs is that only the most important class of a
 * pair moves (ORDER policies) and that flows beyond {@code maxNum} peers wait. The model does not
 * include what Courier gains in a real network (fewer competing TCP connections, less queueing and
 * loss): those are measured on the emulated testbed, not here.
 *
 * <p>Rates: flows on a connection keep the inner policy's rate (RATE) or are allocated greedily in
 * the inner order (ORDER); leftovers are backfilled among flows that have a connection only.
 */
public final class CourierPolicy extends ForwardingPolicy {
  private final int maxNum;
  private final double minSize;
  private Allocator allocator;
  private Schedule spare;

  // The decision under way: the flows in priority order, with their classes and pair keys (by
  // position in that order), and which flows have a connection (by flow index).
  private int[] order = new int[0];
  private int[] classes = new int[0];
  private int[] keys = new int[0];
  private boolean[] connected = new boolean[0];

  // By pair key (receiver * ports + sender: a receiver's pairs are side by side): the decision a
  // pair was last seen in and chosen in, and its unified flow's class, size and rate. Per
  // receiver, its senders in first-seen order.
  private int decision;
  private int[] pairSeen = new int[0];
  private int[] pairChosen = new int[0];
  private int[] pairClass = new int[0];
  private double[] pairSize = new double[0];
  private double[] pairRate = new double[0];
  private int[][] sendersOf = new int[0][];
  private int[] senderCount = new int[0];
  private int[] top = new int[0];

  /**
   * Under an ORDER policy, the connections kept from one decision to the next ({@link
   * KeptConnections}); null under a RATE policy, whose rates move every pair at every decision.
   */
  private final KeptConnections kept;

  /** Tests: every kept decision is checked against the one worked out from every flow. */
  private boolean crossCheck;

  public CourierPolicy(SchedulingPolicy inner, int maxNum, double minSize) {
    super(inner);
    this.maxNum = maxNum;
    this.minSize = minSize;
    this.kept = inner.type() == PolicyType.ORDER ? new KeptConnections(maxNum) : null;
  }

  /** The kept connections, or null under a RATE policy (for tests). */
  KeptConnections kept() {
    return kept;
  }

  /** Checks every decision of the kept connections against the full one (for tests). */
  CourierPolicy crossCheck() {
    crossCheck = true;
    return this;
  }

  /** Connections of at most this many bytes are never split. */
  double minSize() {
    return minSize;
  }

  @Override
  public Schedule schedule(ClusterState state, double now) {
    Schedule decided = inner.schedule(state, now);
    if (allocator == null || allocator.ports() != state.fabric().size()) {
      allocator = new Allocator(state.fabric().size());
    }
    Schedule out = Schedule.recycle(state, spare);
    spare = null;
    out.appendOrderOf(decided);
    if (kept == null || !kept.schedule(state, decided, out, allocator)) {
      decide(state, decided, out);
    } else if (crossCheck) {
      Schedule full = Schedule.empty(state);
      full.appendOrderOf(decided);
      decide(state, decided, full);
      for (int i = 0, n = state.flows().size(); i < n; i++) {
        if (Double.compare(full.rate(i), out.rate(i)) != 0) {
          throw new IllegalStateException(
              "kept connections gave "
                  + state.flows().get(i)
                  + " the rate "
                  + out.rate(i)
                  + ", the full decision "
                  + full.rate(i)
                  + " (t="
                  + now
                  + ")");
        }
      }
    }
    inner.recycle(decided);
    return out;
  }

  /** The connections and rates worked out from every active flow, into {@code out}. */
  private void decide(ClusterState state, Schedule decided, Schedule out) {
    int ports = state.fabric().size();
    int n = decided.orderSize();
    if (order.length < n) {
      order = new int[Math.max(n, 2 * order.length)];
      classes = new int[order.length];
    }
    decided.orderInto(order, classes);
    boolean[] connected = connect(state, decided, order, classes, n);
    PortBudget budget = new PortBudget(state.fabric());
    for (int k = 0; k < n; k++) {
      int i = order[k];
      if (!connected[i]) {
        continue;
      }
      int dst = keys[k] / ports;
      int src = keys[k] - dst * ports;
      double r =
          inner.type() == PolicyType.RATE
              ? Math.min(decided.rate(i), budget.available(src, dst))
              : budget.available(src, dst);
      if (r > 0) {
        out.setRate(i, r);
        budget.take(src, dst, r);
      }
    }
    Backfill.fill(state, budget, out, connected, allocator);
  }

  /**
   * Which flows have a connection, by flow index: the flows the agents' {@link Merge#merge} and
   * {@link SelectAndSplit#select} carry on a connection, given the flows in priority order ({@code
   * order[0 .. n)}) with their classes. The same decision computed over arrays instead of one
   * object per flow and event: per (sender, receiver) pair, its unified flow's class, size and rate
   * (summed in the same order), then per receiver the {@code maxNum} most important pairs (the
   * order of {@code SelectAndSplit}: rate or class, then size, then the peer that follows the
   * receiver cyclically). Splitting a connection in two changes what it carries, not which flows.
   */
  boolean[] connect(ClusterState state, Schedule decided, int[] order, int[] classes, int n) {
    int ports = state.fabric().size();
    int flows = state.flows().size();
    if (pairSeen.length != ports * ports) {
      pairSeen = new int[ports * ports];
      pairChosen = new int[ports * ports];
      pairClass = new int[ports * ports];
      pairSize = new double[ports * ports];
      pairRate = new double[ports * ports];
      sendersOf = new int[ports][ports];
      senderCount = new int[ports];
      top = new int[maxNum];
    }
    if (connected.length < flows) {
      connected = new boolean[Math.max(flows, 2 * connected.length)];
    } else {
      Arrays.fill(connected, 0, flows, false);
    }
    if (keys.length < n) {
      keys = new int[Math.max(n, 2 * keys.length)];
    }
    int stamp = ++decision;
    boolean rate = inner.type() == PolicyType.RATE;
    Arrays.fill(senderCount, 0);
    // Alg. 2 (merge): each pair's unified flow, pairs per receiver in first-seen order.
    for (int k = 0; k < n; k++) {
      int i = order[k];
      int src = state.srcAt(i);
      int dst = state.dstAt(i);
      int key = dst * ports + src;
      keys[k] = key;
      double left = state.remainingAt(i);
      double size = left > 0 ? left : 0; // never -0.0
      double r = decided.rate(i) + 0.0; // -0.0 + 0.0 is 0.0; nothing else changes
      int cls = classes[k];
      if (pairSeen[key] != stamp) {
        pairSeen[key] = stamp;
        pairClass[key] = cls;
        pairSize[key] = size;
        pairRate[key] = r;
        sendersOf[dst][senderCount[dst]++] = src;
      } else if (rate) {
        pairRate[key] += r;
        pairSize[key] += size;
      } else if (cls == pairClass[key]) {
        pairSize[key] += size;
      } else if (cls < pairClass[key]) {
        pairClass[key] = cls;
        pairSize[key] = size;
        pairRate[key] = r;
      }
    }
    // Alg. 3 (select): per receiver, every pair if at most maxNum, else the maxNum most important.
    for (int dst = 0; dst < ports; dst++) {
      int m = senderCount[dst];
      int[] senders = sendersOf[dst];
      if (m <= maxNum) {
        for (int j = 0; j < m; j++) {
          pairChosen[dst * ports + senders[j]] = stamp;
        }
        continue;
      }
      int size = 0;
      for (int j = 0; j < m; j++) {
        int key = dst * ports + senders[j];
        if (size == maxNum && !moreImportant(key, top[size - 1], ports, rate)) {
          continue;
        }
        int t = size == maxNum ? size - 1 : size++;
        while (t > 0 && moreImportant(key, top[t - 1], ports, rate)) {
          top[t] = top[t - 1];
          t--;
        }
        top[t] = key;
      }
      for (int t = 0; t < size; t++) {
        pairChosen[top[t]] = stamp;
      }
    }
    // A chosen pair carries all its flows (RATE) or those of its most important class (ORDER).
    for (int k = 0; k < n; k++) {
      int i = order[k];
      int key = keys[k];
      connected[i] = pairChosen[key] == stamp && (rate || classes[k] == pairClass[key]);
    }
    return connected;
  }

  /**
   * {@code SelectAndSplit}'s order of unified flows, for pairs {@code a} and {@code b} into one
   * receiver: plain comparisons of sizes and rates that are never NaN, and never -0.0 (see {@link
   * #connect}), order them as its {@code Double.compare} does.
   */
  private boolean moreImportant(int a, int b, int ports, boolean rate) {
    return moreImportant(a, b, ports, rate, pairRate, pairClass, pairSize);
  }

  /** {@link #moreImportant(int, int, int, boolean)} on the pairs' numbers given by key. */
  static boolean moreImportant(
      int a,
      int b,
      int ports,
      boolean rate,
      double[] pairRate,
      int[] pairClass,
      double[] pairSize) {
    if (rate) {
      double ra = pairRate[a];
      double rb = pairRate[b];
      if (ra != rb) {
        return ra > rb;
      }
    } else if (pairClass[a] != pairClass[b]) {
      return pairClass[a] < pairClass[b];
    }
    double sa = pairSize[a];
    double sb = pairSize[b];
    if (sa != sb) {
      return sa > sb;
    }
    int dst = a / ports;
    int srcA = a - dst * ports;
    int srcB = b - dst * ports;
    return Integer.compareUnsigned(srcA - dst - 1, srcB - dst - 1) < 0;
  }

  @Override
  public void recycle(Schedule done) {
    spare = done;
  }
}
