package org.coflow.core.merge;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.coflow.core.model.PolicyType;

/** Courier Alg. 2: merge the scheduler's flows into one unified flow per (source, destination). */
public final class Merge {
  private Merge() {}

  /**
   * @return one unified flow per host pair present in {@code flows}, in first-seen order
   */
  public static <K> List<UnifiedFlow<K>> merge(List<FlowDemand<K>> flows, PolicyType type) {
    List<UnifiedFlow<K>> out = new ArrayList<>();
    PairIndex index = new PairIndex(flows.size());
    for (int i = 0, n = flows.size(); i < n; i++) {
      FlowDemand<K> f = flows.get(i);
      int slot = index.slotOf(f.src(), f.dst(), out.size());
      if (slot == out.size()) {
        out.add(new UnifiedFlow<>(f));
      } else if (type == PolicyType.RATE) {
        out.get(slot).mergeRate(f);
      } else {
        out.get(slot).mergeOrder(f);
      }
    }
    return out;
  }

  /** Open-addressing map from a host pair to the position of its unified flow. */
  private static final class PairIndex {
    private final long[] keys;
    private final int[] values;
    private final int mask;

    PairIndex(int expected) {
      int cap = Integer.highestOneBit(Math.max(4, expected) * 2 - 1) << 1;
      keys = new long[cap];
      values = new int[cap];
      Arrays.fill(values, -1);
      mask = cap - 1;
    }

    /** The slot of the pair, or {@code next} (recorded) if the pair is new. */
    int slotOf(int src, int dst, int next) {
      long key = ((long) src << 32) | (dst & 0xffffffffL);
      int h = Long.hashCode(key * 0x9E3779B97F4A7C15L) & mask;
      while (values[h] >= 0) {
        if (keys[h] == key) {
          return values[h];
        }
        h = (h + 1) & mask;
      }
      keys[h] = key;
      values[h] = next;
      return next;
    }
  }
}
