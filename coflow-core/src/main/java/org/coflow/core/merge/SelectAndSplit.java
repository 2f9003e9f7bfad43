package org.coflow.core.merge;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.PolicyType;

/**
 * Courier Alg. 3: which unified flows of one host get a connection, and which are split.
 *
 * <p>With more unified flows than {@code maxNum}, the most important ones (highest rate for RATE
 * policies, lowest priority class for ORDER) are started and the rest wait. With fewer, the most
 * important connections larger than {@code minSize} are halved (rate and size for RATE, size for
 * ORDER) until {@code maxNum} connections exist. Ties go to the larger size, then to the peer that
 * follows this host cyclically (the smallest {@code src - dst - 1}, unsigned): hosts choosing among
 * equally important peers then spread their connections over different peers instead of all picking
 * the same few (which, with many receivers of one wide coflow, would leave most senders idle).
 *
 * <p>Fix of the paper's pseudo-code: its loop runs while fewer than {@code maxNum} connections
 * exist and never ends when nothing is left to select and nothing is larger than {@code minSize};
 * here the loop stops when there is no split candidate.
 */
public final class SelectAndSplit {
  private SelectAndSplit() {}

  /**
   * @param unified one host's unified flows (from {@link Merge#merge})
   * @param maxNum the most connections the host may hold (at least 1)
   * @param minSize connections of at most this many bytes are never split
   */
  public static <K> List<Connection<K>> select(
      List<UnifiedFlow<K>> unified, PolicyType type, int maxNum, double minSize) {
    if (maxNum < 1) {
      throw new IllegalArgumentException("MaxNum must be at least 1, got " + maxNum);
    }
    List<Connection<K>> active = new ArrayList<>(Math.min(maxNum, unified.size()) + 1);
    if (unified.size() <= maxNum) {
      for (UnifiedFlow<K> u : unified) {
        active.add(new Connection<>(u, u.size(), u.rate()));
      }
    } else {
      // Lines 3-10 (select): the maxNum most important, in order. An insertion-sorted top list
      // costs one comparison per flow that does not make it, so n flows cost about n, not n log n.
      int[] top = new int[maxNum];
      int size = 0;
      for (int i = 0; i < unified.size(); i++) {
        UnifiedFlow<K> u = unified.get(i);
        if (size == maxNum && !moreImportant(u, unified.get(top[size - 1]), type)) {
          continue;
        }
        int j = size == maxNum ? size - 1 : size++;
        while (j > 0 && moreImportant(u, unified.get(top[j - 1]), type)) {
          top[j] = top[j - 1];
          j--;
        }
        top[j] = i;
      }
      for (int k = 0; k < size; k++) {
        UnifiedFlow<K> u = unified.get(top[k]);
        active.add(new Connection<>(u, u.size(), u.rate()));
      }
      return active;
    }
    // Lines 11-17 (split), only once every unified flow has a connection.
    while (active.size() < maxNum) {
      int best = -1;
      for (int i = 0; i < active.size(); i++) {
        Connection<K> c = active.get(i);
        if (c.size() > minSize && (best < 0 || moreImportant(c, active.get(best), type))) {
          best = i;
        }
      }
      if (best < 0) {
        break;
      }
      Connection<K>[] halves = active.get(best).split();
      active.set(best, halves[0]);
      active.add(best + 1, halves[1]);
    }
    return active;
  }

  private static boolean moreImportant(UnifiedFlow<?> a, UnifiedFlow<?> b, PolicyType type) {
    int c = compare(a.rate(), a.order(), a.size(), b.rate(), b.order(), b.size(), type);
    return c != 0
        ? c < 0
        : Integer.compareUnsigned(a.src() - a.dst() - 1, b.src() - b.dst() - 1) < 0;
  }

  private static boolean moreImportant(Connection<?> a, Connection<?> b, PolicyType type) {
    return compare(a.rate(), a.order(), a.size(), b.rate(), b.order(), b.size(), type) < 0;
  }

  /** Negative when the first is more important: by rate or order, then by size. */
  private static int compare(
      double rateA,
      int orderA,
      double sizeA,
      double rateB,
      int orderB,
      double sizeB,
      PolicyType type) {
    int c =
        type == PolicyType.RATE ? Double.compare(rateB, rateA) : Integer.compare(orderA, orderB);
    return c != 0 ? c : Double.compare(sizeB, sizeA);
  }
}
