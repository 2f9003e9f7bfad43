package org.coflow.sim.engine;

import java.util.Arrays;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Allocator;
import org.coflow.core.policy.PortBudget;
import org.coflow.core.policy.Schedule;

/**
 * Courier's connections under an ORDER policy whose order is whole coflows (Sincronia), kept from
 * one decision to the next instead of worked out from every waiting flow ({@link
 * CourierPolicy#connect}): the same flows connected and the same rates, bit for bit, at the cost of
 * the connected flows rather than all of them.
 *
 * <p>Why it holds. Under an ORDER policy only connected flows get a rate (greedily in priority
 * order, then the backfill among connected flows), so between two decisions whose order is the same
 * (the same coflows with the same classes, and no flow added) only the flows of the pairs that were
 * chosen have moved or finished. Every other pair keeps its class and size, so what the receivers
 * did not choose keeps its order of importance, and a chosen pair only ever loses importance (its
 * size shrinks; its class rises when its most important flows are done). Each receiver keeps its
 * chosen pairs (at most MaxNum) and the others sorted by importance; after a decision the chosen
 * pairs are brought up to date and swapped with the best of the others while they are less
 * important. When the order changes (a coflow arrives or finishes) everything is rebuilt from the
 * flows.
 *
 * <p>It relies on what the simulator guarantees: between two decisions a flow changes only by the
 * bytes its rate moved, or by finishing (flows are added, and never grow, only with a change of the
 * state's {@link ClusterState#membershipVersion}). {@code KeptConnectionsTest} checks every kept
 * decision against the full one.
 */
final class KeptConnections {
  private final int maxNum;

  // What the kept state was built for: the state, its membership and the order's segments.
  private ClusterState state;
  private long version;
  private int ports;
  private Coflow[] segCoflow = new Coflow[64];
  private int[] segClass = new int[64];
  private int segments;
  private Coflow[] nowCoflow = new Coflow[64];
  private int[] nowClass = new int[64];

  // Per pair key (receiver * ports + sender): its flows in the priority order of the last rebuild,
  // entries start[key] .. start[key + 1] of entryFlow (with their segments in entrySeg), the first
  // one not finished (head), and the pair's unified flow's class and size.
  private int[] start = new int[0];
  private int[] head = new int[0];
  private Flow[] entryFlow = new Flow[0];
  private int[] entrySeg = new int[0];
  private int[] pairClass = new int[0];
  private double[] pairSize = new double[0];

  // Per receiver: the keys of its chosen pairs, and of the others by importance (live from
  // othersFrom to othersTo).
  private int[][] chosen = new int[0][];
  private int[] chosenCount = new int[0];
  private int[][] others = new int[0][];
  private int[] othersFrom = new int[0];
  private int[] othersTo = new int[0];

  /**
   * Per pair key and per receiver: whether a flow of the pair (into the receiver) got a rate at the
   * last decision. Only those pairs can have changed since.
   */
  private boolean[] pairMoved = new boolean[0];

  private boolean[] receiverMoved = new boolean[0];

  /** The connected flows of the last decision, in priority order. */
  private final ConnectedList connected = new ConnectedList();

  /** Whether a pair is among its receiver's chosen ones, by key. */
  private boolean[] pairChosen = new boolean[0];

  /**
   * The pairs whose connected flows are to be listed again at this decision (their flows moved, or
   * they were chosen or dropped), listed once each.
   */
  private boolean[] pairChanged = new boolean[0];

  private int[] changedPairs = new int[64];
  private int changedCount;

  /**
   * The flows that moved at the last decision and their segments; per segment, whether its coflow's
   * moved positions were looked for at this decision.
   */
  private Flow[] movedFlow = new Flow[64];

  private int[] movedSeg = new int[64];
  private int movedCount;
  private boolean[] segMoved = new boolean[64];

  /**
   * Per segment: its coflow's {@link Coflow#activeChanges} at the last decision, and whether all
   * its listed flows are to be placed again (its coflow forgot some of the changes since).
   */
  private long[] changesAt = new long[64];

  private boolean[] segAll = new boolean[64];

  private long[] run = new long[8];
  private int[] candidates = new int[64];
  private int[] sortBuffer = new int[0];

  private long rebuilds;
  private long updates;

  KeptConnections(int maxNum) {
    this.maxNum = maxNum;
  }

  /** Decisions that rebuilt the kept state from every flow (for tests). */
  long rebuilds() {
    return rebuilds;
  }

  /** Decisions that brought the kept state up to date from the chosen pairs only (for tests). */
  long updates() {
    return updates;
  }

  /**
   * Gives the connected flows of {@code state} their rates in {@code out} (whose order the caller
   * appended), as {@link CourierPolicy#schedule} does for an ORDER policy. Returns false, having
   * done nothing, when {@code decided}'s order is not made of whole coflows in class order: the
   * caller then works the connections out from every flow.
   */
  boolean schedule(ClusterState state, Schedule decided, Schedule out, Allocator allocator) {
    int coflows = state.coflows().size();
    if (nowCoflow.length < coflows) {
      nowCoflow = new Coflow[Math.max(coflows, 2 * nowCoflow.length)];
      nowClass = new int[nowCoflow.length];
    }
    int segs = decided.wholeCoflowSegments(nowCoflow, nowClass);
    for (int s = 1; s < segs && segs > 0; s++) {
      if (nowClass[s] < nowClass[s - 1]) {
        segs = -1;
      }
    }
    if (segs < 0) {
      this.state = null;
      return false;
    }
    int n;
    if (sameOrder(state, segs)) {
      updates++;
      update();
      n = reconnect();
    } else {
      rebuilds++;
      rebuild(state, segs);
      n = connect();
    }
    // A pair's key gives its ports; a flow's index is looked up only when it gets a rate or an
    // offer. The flows that may have got a rate are noted (by place in the list) on the way.
    PortBudget budget = new PortBudget(state.fabric());
    if (candidates.length < 2 * n) {
      candidates = new int[Math.max(2 * n, 2 * candidates.length)];
    }
    int noted = 0;
    for (int j = 0; j < n; j++) {
      int key = connected.pair(j);
      int dst = key / ports;
      int src = key - dst * ports;
      double r = budget.available(src, dst);
      if (r > 0) {
        out.setRate(indexOf(connected.entry(j)), r);
        budget.take(src, dst, r);
        candidates[noted++] = j;
      }
    }
    // The backfill among connected flows (Backfill.fill with them eligible): class by class, the
    // flows with spare capacity at both ends, in priority order, share it max-min fairly.
    for (int j = 0; j < n; ) {
      int cls = segClass[connected.segment(j)];
      allocator.clearGroup();
      for (; j < n && segClass[connected.segment(j)] == cls; j++) {
        int key = connected.pair(j);
        int dst = key / ports;
        int src = key - dst * ports;
        if (budget.available(src, dst) > 0) {
          allocator.offer(indexOf(connected.entry(j)), src, dst, budget);
          candidates[noted++] = j;
        }
      }
      allocator.fillGroup(budget, out);
    }
    for (int seg = 0; seg < segs; seg++) {
      changesAt[seg] = segCoflow[seg].activeChanges();
    }
    // The flows that moved (a flow rated greedily and offered leftovers is noted twice: harmless).
    movedCount = 0;
    for (int c = 0; c < noted; c++) {
      int j = candidates[c];
      if (out.rate(indexOf(connected.entry(j))) > 0) {
        int key = connected.pair(j);
        pairMoved[key] = true;
        receiverMoved[key / ports] = true;
        if (movedCount == movedFlow.length) {
          movedFlow = Arrays.copyOf(movedFlow, 2 * movedCount);
          movedSeg = Arrays.copyOf(movedSeg, 2 * movedCount);
        }
        movedFlow[movedCount] = connected.flow(j);
        movedSeg[movedCount++] = connected.segment(j);
      }
    }
    return true;
  }

  private int indexOf(long entry) {
    return segCoflow[(int) (entry >>> 32)].activeIndex((int) entry);
  }

  private boolean sameOrder(ClusterState state, int segs) {
    if (state != this.state
        || state.membershipVersion() != version
        || state.fabric().size() != ports
        || segs != segments) {
      return false;
    }
    for (int s = 0; s < segs; s++) {
      if (nowCoflow[s] != segCoflow[s] || nowClass[s] != segClass[s]) {
        return false;
      }
    }
    return true;
  }

  private void rebuild(ClusterState state, int segs) {
    this.state = state;
    this.version = state.membershipVersion();
    this.segments = segs;
    Coflow[] swapCoflow = segCoflow;
    segCoflow = nowCoflow;
    nowCoflow = swapCoflow;
    int[] swapClass = segClass;
    segClass = nowClass;
    nowClass = swapClass;
    int p = state.fabric().size();
    if (p != ports) {
      ports = p;
      start = new int[p * p + 1];
      head = new int[p * p];
      pairClass = new int[p * p];
      pairSize = new double[p * p];
      chosen = new int[p][maxNum];
      chosenCount = new int[p];
      others = new int[p][p];
      othersFrom = new int[p];
      othersTo = new int[p];
      sortBuffer = new int[p];
      pairMoved = new boolean[p * p];
      receiverMoved = new boolean[p];
      pairChosen = new boolean[p * p];
      pairChanged = new boolean[p * p];
    }
    Arrays.fill(pairMoved, false);
    Arrays.fill(receiverMoved, false);
    Arrays.fill(pairChosen, false);
    movedCount = 0;
    if (segMoved.length < segs) {
      segMoved = new boolean[Math.max(segs, 2 * segMoved.length)];
      segAll = new boolean[segMoved.length];
      changesAt = new long[segMoved.length];
    }
    int flows = state.flows().size();
    if (entryFlow.length < flows) {
      entryFlow = new Flow[Math.max(flows, 2 * entryFlow.length)];
      entrySeg = new int[entryFlow.length];
    }
    // Entries by pair, each pair's in priority order (a counting sort of the order by pair).
    Arrays.fill(start, 0);
    for (int s = 0; s < segs; s++) {
      Coflow c = segCoflow[s];
      for (int k = 0, m = c.activeCount(); k < m; k++) {
        start[c.activeDst(k) * p + c.activeSrc(k) + 1]++;
      }
    }
    for (int key = 0; key < p * p; key++) {
      start[key + 1] += start[key];
      head[key] = start[key];
    }
    for (int s = 0; s < segs; s++) {
      Coflow c = segCoflow[s];
      for (int k = 0, m = c.activeCount(); k < m; k++) {
        int at = head[c.activeDst(k) * p + c.activeSrc(k)]++;
        entryFlow[at] = state.flows().get(c.activeIndex(k));
        entrySeg[at] = s;
      }
    }
    Arrays.fill(entryFlow, start[p * p], entryFlow.length, null);
    for (int dst = 0; dst < p; dst++) {
      int m = 0;
      int[] keys = others[dst];
      for (int src = 0; src < p; src++) {
        int key = dst * p + src;
        head[key] = start[key];
        if (start[key + 1] > start[key]) {
          refresh(key);
          keys[m++] = key;
        }
      }
      sortByImportance(keys, m);
      int c = Math.min(m, maxNum);
      System.arraycopy(keys, 0, chosen[dst], 0, c);
      for (int j = 0; j < c; j++) {
        pairChosen[keys[j]] = true;
      }
      chosenCount[dst] = c;
      othersFrom[dst] = c;
      othersTo[dst] = m;
    }
  }

  /**
   * The chosen pairs whose flows moved brought up to date, and swapped with better others, receiver
   * by receiver.
   */
  private void update() {
    for (int dst = 0; dst < ports; dst++) {
      if (!receiverMoved[dst]) {
        continue;
      }
      receiverMoved[dst] = false;
      int[] keys = chosen[dst];
      int c = 0;
      for (int j = 0, m = chosenCount[dst]; j < m; j++) {
        int key = keys[j];
        if (!pairMoved[key]) {
          keys[c++] = key;
        } else {
          pairMoved[key] = false;
          changed(key);
          if (refresh(key)) {
            keys[c++] = key;
          } else {
            pairChosen[key] = false;
          }
        }
      }
      int[] rest = others[dst];
      while (othersFrom[dst] < othersTo[dst]) {
        int best = rest[othersFrom[dst]];
        if (c < maxNum) {
          keys[c++] = best;
          othersFrom[dst]++;
          pairChosen[best] = true;
          changed(best);
          continue;
        }
        int worst = 0;
        for (int j = 1; j < c; j++) {
          if (moreImportant(keys[worst], keys[j])) {
            worst = j;
          }
        }
        if (!moreImportant(best, keys[worst])) {
          break;
        }
        // Swap: the demoted pair goes among the others, in its place by importance.
        int demoted = keys[worst];
        keys[worst] = best;
        pairChosen[best] = true;
        pairChosen[demoted] = false;
        changed(best);
        changed(demoted);
        int lo = othersFrom[dst] + 1;
        int hi = othersTo[dst];
        while (lo < hi) {
          int mid = (lo + hi) >>> 1;
          if (moreImportant(rest[mid], demoted)) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        int from = othersFrom[dst];
        System.arraycopy(rest, from + 1, rest, from, lo - from - 1);
        rest[lo - 1] = demoted;
      }
      chosenCount[dst] = c;
    }
  }

  /**
   * Skips the pair's finished flows and works out its unified flow's class and size as {@link
   * CourierPolicy#connect} does (the sizes of its flows of the most important class, summed in
   * priority order); false if none of its flows is left.
   */
  private boolean refresh(int key) {
    int end = start[key + 1];
    int h = head[key];
    while (h < end && entryFlow[h].finished()) {
      h++;
    }
    head[key] = h;
    if (h == end) {
      return false;
    }
    int cls = segClass[entrySeg[h]];
    int n = 0;
    for (int j = h; j < end && segClass[entrySeg[j]] == cls; j++) {
      Flow f = entryFlow[j];
      if (!f.finished()) {
        if (n == run.length) {
          run = Arrays.copyOf(run, 2 * n);
        }
        run[n++] = (long) entrySeg[j] << 32 | f.position();
      }
    }
    if (n > 1) {
      // Positions in a coflow move when its flows finish: today's priority order.
      Arrays.sort(run, 0, n);
    }
    double size = 0;
    for (int j = 0; j < n; j++) {
      double left = state.remainingAt(indexOf(run[j]));
      size += left > 0 ? left : 0;
    }
    pairClass[key] = cls;
    pairSize[key] = size;
    return true;
  }

  private void changed(int key) {
    if (!pairChanged[key]) {
      pairChanged[key] = true;
      if (changedCount == changedPairs.length) {
        changedPairs = Arrays.copyOf(changedPairs, 2 * changedCount);
      }
      changedPairs[changedCount++] = key;
    }
  }

  /** The connected flows of every chosen pair, in priority order, into {@link #connected}. */
  private int connect() {
    connected.startAdding();
    for (int dst = 0; dst < ports; dst++) {
      int[] keys = chosen[dst];
      for (int j = 0, m = chosenCount[dst]; j < m; j++) {
        addRun(keys[j]);
      }
    }
    connected.replaceWithAdded();
    return connected.size();
  }

  /**
   * {@link #connect} from the last decision's list: the flows of unchanged pairs stay where they
   * were, unless their coflow's positions moved (a flow of it finished: its last flow took the
   * finished one's position); the changed pairs' flows are listed again. A pair with a finished
   * flow moved, so it changed.
   */
  private int reconnect() {
    for (int j = 0; j < movedCount; j++) {
      if (movedFlow[j].finished()) {
        int seg = movedSeg[j];
        if (!segMoved[seg]) {
          segMoved[seg] = true;
          segAll[seg] = !connected.markMoved(seg, segCoflow[seg], changesAt[seg]);
        }
      }
    }
    connected.startAdding();
    connected.keepUnchanged(pairChanged, segAll);
    for (int j = 0; j < movedCount; j++) {
      segMoved[movedSeg[j]] = false;
      segAll[movedSeg[j]] = false;
    }
    for (int j = 0; j < changedCount; j++) {
      int key = changedPairs[j];
      pairChanged[key] = false;
      if (pairChosen[key]) {
        addRun(key);
      }
    }
    changedCount = 0;
    connected.mergeAdded();
    return connected.size();
  }

  /** Adds the pair's flows of its class that have not finished to {@link #added}. */
  private void addRun(int key) {
    int cls = pairClass[key];
    for (int e = head[key], end = start[key + 1]; e < end && segClass[entrySeg[e]] == cls; e++) {
      Flow f = entryFlow[e];
      if (!f.finished()) {
        connected.add((long) entrySeg[e] << 32 | f.position(), f, key);
      }
    }
  }

  private boolean moreImportant(int a, int b) {
    return CourierPolicy.moreImportant(a, b, ports, false, null, pairClass, pairSize);
  }

  /** Sorts {@code keys[0 .. n)}, most important first (a merge sort: no boxing). */
  private void sortByImportance(int[] keys, int n) {
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n - width; lo += 2 * width) {
        int mid = lo + width;
        int hi = Math.min(lo + 2 * width, n);
        System.arraycopy(keys, lo, sortBuffer, lo, hi - lo);
        int a = lo;
        int b = mid;
        for (int k = lo; k < hi; k++) {
          if (b >= hi || (a < mid && !moreImportant(sortBuffer[b], sortBuffer[a]))) {
            keys[k] = sortBuffer[a++];
          } else {
            keys[k] = sortBuffer[b++];
          }
        }
      }
    }
  }
}
