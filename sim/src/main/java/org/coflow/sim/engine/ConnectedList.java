package org.coflow.sim.engine;

import java.util.Arrays;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;

/**
 * The connected flows of a decision in priority order, for {@link KeptConnections}: each as an
 * entry (segment of the order {@code << 32} | position in its coflow, which sorts as the priority
 * order of a schedule of whole coflows), its flow and its pair's key. Kept from one decision to the
 * next: the flows of pairs that did not change stay, those whose position in their coflow moved are
 * placed again, and the changed pairs' flows are merged in.
 */
final class ConnectedList {
  private long[] entries = new long[64];
  private Flow[] flows = new Flow[64];
  private int[] pairs = new int[64];
  private int size;

  /** Per listed flow: whether its position in its coflow moved since the last decision. */
  private boolean[] rekey = new boolean[64];

  // The moves of one coflow's flows since the last decision: from the position they had then to
  // the one they have now.
  private int[] moveFrom = new int[16];
  private int[] moveTo = new int[16];

  // Connected flows to merge into the list.
  private long[] added = new long[64];
  private Flow[] addedFlow = new Flow[64];
  private int[] addedPair = new int[64];
  private int addedSize;

  private long[] sortKeys = new long[64];
  private Flow[] sortFlows = new Flow[64];
  private int[] sortPairs = new int[64];

  int size() {
    return size;
  }

  long entry(int j) {
    return entries[j];
  }

  int segment(int j) {
    return (int) (entries[j] >>> 32);
  }

  Flow flow(int j) {
    return flows[j];
  }

  int pair(int j) {
    return pairs[j];
  }

  /** Starts a new set of flows to add. */
  void startAdding() {
    addedSize = 0;
  }

  /** The added flows, in priority order, become the list. */
  void replaceWithAdded() {
    sortAdded();
    long[] e = entries;
    entries = added;
    added = e;
    Flow[] f = flows;
    flows = addedFlow;
    addedFlow = f;
    int[] p = pairs;
    pairs = addedPair;
    addedPair = p;
    Arrays.fill(addedFlow, 0, size, null);
    size = addedSize;
    fitRekey();
  }

  /**
   * Keeps the flows of pairs not {@code changed} (by key), in place unless flagged by {@link
   * #markMoved} or of a segment flagged in {@code segAll}: those are added again at their new
   * positions. The changed pairs' flows are dropped.
   */
  void keepUnchanged(boolean[] changed, boolean[] segAll) {
    int kept = 0;
    for (int j = 0, n = size; j < n; j++) {
      int key = pairs[j];
      boolean moved = rekey[j];
      rekey[j] = false;
      if (changed[key]) {
        continue;
      }
      Flow f = flows[j];
      long entry = entries[j];
      int seg = (int) (entry >>> 32);
      if (moved || segAll[seg]) {
        add((long) seg << 32 | f.position(), f, key);
      } else {
        entries[kept] = entry;
        flows[kept] = f;
        pairs[kept++] = key;
      }
    }
    Arrays.fill(flows, kept, size, null);
    size = kept;
  }

  /** Merges the added flows into the list, in priority order. */
  void mergeAdded() {
    sortAdded();
    int total = size + addedSize;
    if (entries.length < total) {
      int len = Math.max(total, 2 * entries.length);
      entries = Arrays.copyOf(entries, len);
      flows = Arrays.copyOf(flows, len);
      pairs = Arrays.copyOf(pairs, len);
    }
    // From the back, so that the kept flows move at most once.
    int a = size - 1;
    int b = addedSize - 1;
    for (int t = total - 1; b >= 0; t--) {
      if (a >= 0 && entries[a] > added[b]) {
        entries[t] = entries[a];
        flows[t] = flows[a];
        pairs[t] = pairs[a--];
      } else {
        entries[t] = added[b];
        flows[t] = addedFlow[b];
        pairs[t] = addedPair[b--];
      }
    }
    Arrays.fill(addedFlow, 0, addedSize, null);
    size = total;
    fitRekey();
  }

  private void fitRekey() {
    if (rekey.length < size) {
      rekey = new boolean[Math.max(size, 2 * rekey.length)];
    }
  }

  /**
   * Flags the listed flows of segment {@code seg}'s coflow whose positions moved since the last
   * decision: each flow that finished since gave its position to the coflow's last flow ({@link
   * Coflow#changeGone}, {@link Coflow#changeLast}). Follows the moves from the positions of the
   * last decision, and finds each moved flow in the list (sorted by segment and position) by binary
   * search. False, having flagged nothing, when the coflow no longer remembers every change since
   * {@code from} (its {@link Coflow#activeChanges} at the last decision): the caller then places
   * the segment's flows again.
   */
  boolean markMoved(int seg, Coflow c, long from) {
    long to = c.activeChanges();
    int moves = 0;
    for (long change = from + 1; change <= to; change++) {
      if (!c.changeKnown(change) || c.changeGone(change) < 0) {
        return false;
      }
      int gone = c.changeGone(change);
      int last = c.changeLast(change);
      boolean noted = false;
      for (int m = 0; m < moves; m++) {
        if (moveTo[m] == gone) {
          moveTo[m] = -1; // a flow that had moved finished
        } else if (moveTo[m] == last && gone != last) {
          moveTo[m] = gone;
          noted = true;
        }
      }
      if (gone == last || noted) {
        continue;
      }
      // The flow at `last`, where it was at the last decision, now at `gone`.
      if (moves == moveFrom.length) {
        moveFrom = Arrays.copyOf(moveFrom, 2 * moves);
        moveTo = Arrays.copyOf(moveTo, 2 * moves);
      }
      moveFrom[moves] = last;
      moveTo[moves++] = gone;
    }
    for (int m = 0; m < moves; m++) {
      if (moveTo[m] < 0) {
        continue;
      }
      int j = Arrays.binarySearch(entries, 0, size, (long) seg << 32 | moveFrom[m]);
      if (j >= 0) {
        rekey[j] = true;
      }
    }
    return true;
  }

  /** Adds a connected flow, with its entry and pair, to the ones to merge into the list. */
  void add(long entry, Flow f, int key) {
    if (addedSize == added.length) {
      int len = 2 * addedSize;
      added = Arrays.copyOf(added, len);
      addedFlow = Arrays.copyOf(addedFlow, len);
      addedPair = Arrays.copyOf(addedPair, len);
    }
    added[addedSize] = entry;
    addedFlow[addedSize] = f;
    addedPair[addedSize++] = key;
  }

  /** Sorts the added flows by priority order, their flows and pairs with them. */
  private void sortAdded() {
    int n = addedSize;
    if (sortKeys.length < n) {
      int len = Math.max(n, 2 * sortKeys.length);
      sortKeys = new long[len];
      sortFlows = new Flow[len];
      sortPairs = new int[len];
    }
    // Each entry packed with its place in the buffer: (segment, position, place) in 19, 24 and 20
    // bits, which sort as the entries do (entries are distinct). Beyond those bounds, a boxed sort.
    boolean packs = n < 1 << 20;
    for (int j = 0; j < n && packs; j++) {
      long entry = added[j];
      long seg = entry >>> 32;
      long pos = entry & 0xffffffffL;
      packs = seg < 1 << 19 && pos < 1 << 24;
      sortKeys[j] = seg << 44 | pos << 20 | j;
    }
    if (packs) {
      Arrays.sort(sortKeys, 0, n);
    } else {
      Integer[] places = new Integer[n];
      for (int j = 0; j < n; j++) {
        places[j] = j;
      }
      Arrays.sort(places, (x, y) -> Long.compare(added[x], added[y]));
      for (int j = 0; j < n; j++) {
        sortKeys[j] = places[j];
      }
    }
    for (int j = 0; j < n; j++) {
      int from = (int) (packs ? sortKeys[j] & ((1 << 20) - 1) : sortKeys[j]);
      sortFlows[j] = addedFlow[from];
      sortPairs[j] = addedPair[from];
      sortKeys[j] = added[from];
    }
    System.arraycopy(sortKeys, 0, added, 0, n);
    System.arraycopy(sortFlows, 0, addedFlow, 0, n);
    System.arraycopy(sortPairs, 0, addedPair, 0, n);
    Arrays.fill(sortFlows, 0, n, null);
  }
}
