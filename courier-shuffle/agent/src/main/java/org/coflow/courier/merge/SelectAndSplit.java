package org.coflow.courier.merge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.coflow.api.model.PolicyType;

/**
 * Courier Alg. 3: which unified flows of one host get a connection, and which are split.
 *
 * <p>With more unified flows than {@code maxNum}, the most important ones (highest rate for RATE
 * policies, lowest priority class for ORDER) are started and the rest wait. With fewer, the most
 * important connections larger than {@code minSize} are halved (rate and size for RATE, size for
 * ORDER) until {@code maxNum} connections exist. Ties go to the larger size, then to the pair that
 * came first.
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
  public static <K> List<Connection<K>> select(List<UnifiedFlow<K>> unified, PolicyType type,
      int maxNum, double minSize) {
    if (maxNum < 1) {
      throw new IllegalArgumentException("MaxNum must be at least 1, got " + maxNum);
    }
    Comparator<Connection<K>> importance = type == PolicyType.RATE
        ? Comparator.<Connection<K>>comparingDouble(c -> -c.rate())
        : Comparator.<Connection<K>>comparingInt(Connection::order);
    importance = importance.thenComparingDouble(c -> -c.size());

    List<Connection<K>> pending = new ArrayList<>(unified.size());
    for (UnifiedFlow<K> u : unified) {
      pending.add(new Connection<>(u, u.size(), u.rate()));
    }
    // Lines 3-10 (select): stable sort keeps first-seen order among equals.
    pending.sort(importance);
    List<Connection<K>> active = new ArrayList<>(Math.min(maxNum, pending.size()));
    for (int i = 0; i < pending.size() && active.size() < maxNum; i++) {
      active.add(pending.get(i));
    }
    // Lines 11-17 (split), only once every unified flow has a connection.
    while (active.size() < maxNum) {
      int best = -1;
      for (int i = 0; i < active.size(); i++) {
        Connection<K> c = active.get(i);
        if (c.size() > minSize && (best < 0 || importance.compare(c, active.get(best)) < 0)) {
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
}
