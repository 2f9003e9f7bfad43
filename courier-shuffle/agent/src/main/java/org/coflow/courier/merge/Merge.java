package org.coflow.courier.merge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.api.model.PolicyType;

/** Courier Alg. 2: merge the scheduler's flows into one unified flow per (source, destination). */
public final class Merge {
  private Merge() {}

  /**
   * @return one unified flow per host pair present in {@code flows}, in first-seen order
   */
  public static <K> List<UnifiedFlow<K>> merge(List<FlowDemand<K>> flows, PolicyType type) {
    Map<Long, UnifiedFlow<K>> byPair = new LinkedHashMap<>();
    for (FlowDemand<K> f : flows) {
      long pair = ((long) f.src() << 32) | (f.dst() & 0xffffffffL);
      UnifiedFlow<K> u = byPair.get(pair);
      if (u == null) {
        byPair.put(pair, new UnifiedFlow<>(f));
      } else if (type == PolicyType.RATE) {
        u.mergeRate(f);
      } else {
        u.mergeOrder(f);
      }
    }
    return new ArrayList<>(byPair.values());
  }
}
