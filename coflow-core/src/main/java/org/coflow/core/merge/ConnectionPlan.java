package org.coflow.core.merge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.model.PolicyType;

/**
 * A fetching agent's connection plan (Courier Alg. 3 applied to its data connections): how many
 * connections each peer's unified flow should have, and which connections must drain to make room.
 * Pure: the fetch service feeds it the current state and carries the plan out.
 *
 * <p>Every peer with blocks waiting or running is one unified flow (Courier Alg. 2: all of this
 * host's fetches from one peer, ordered by their best coflow priority). {@link SelectAndSplit}
 * gives each of them its connections within {@code maxNum}: with more peers than that, the most
 * important go first and the others get none; with fewer, the most important above {@code minSize}
 * are split. A connection beyond its peer's share drains (finishes what runs on it, takes nothing
 * new, then closes) only while another peer is short of its share: otherwise an idle connection
 * stays for the peer's next blocks, so bursts do not reconnect.
 *
 * @param <K> the caller's handle for a peer
 */
public final class ConnectionPlan<K> {
  /** A peer as the plan sees it. */
  public static final class Peer<K> {
    final K key;
    final int index;
    final long outstanding;
    final int order;
    final boolean active;
    final int usable;

    /**
     * @param index a stable number of the peer (its host index for the merge)
     * @param outstanding bytes of its blocks still to come
     * @param order its best coflow priority (0 most important)
     * @param active whether it has blocks waiting or running
     * @param usable its connections open or opening and not draining
     */
    public Peer(K key, int index, long outstanding, int order, boolean active, int usable) {
      this.key = key;
      this.index = index;
      this.outstanding = outstanding;
      this.order = order;
      this.active = active;
      this.usable = usable;
    }
  }

  private final Map<K, Integer> wanted;
  private final Map<K, Integer> drain;

  private ConnectionPlan(Map<K, Integer> wanted, Map<K, Integer> drain) {
    this.wanted = wanted;
    this.drain = drain;
  }

  /** Plans over {@code peers} (in a stable order: earlier peers drain first). */
  public static <K> ConnectionPlan<K> plan(List<Peer<K>> peers, int maxNum, double minSize) {
    List<FlowDemand<K>> demands = new ArrayList<>();
    for (Peer<K> p : peers) {
      if (p.active) {
        demands.add(new FlowDemand<>(p.key, p.index, 0, p.outstanding, 0, p.order));
      }
    }
    Map<K, Integer> wanted = new HashMap<>();
    for (Connection<K> c :
        SelectAndSplit.select(
            Merge.merge(demands, PolicyType.ORDER), PolicyType.ORDER, maxNum, minSize)) {
      wanted.merge(c.flow().carried().get(0).key(), 1, Integer::sum);
    }
    int deficit = 0;
    for (Peer<K> p : peers) {
      deficit += Math.max(0, wanted.getOrDefault(p.key, 0) - p.usable);
    }
    Map<K, Integer> drain = new HashMap<>();
    for (Peer<K> p : peers) {
      int extra = Math.min(Math.max(0, p.usable - wanted.getOrDefault(p.key, 0)), deficit);
      if (extra > 0) {
        drain.put(p.key, extra);
        deficit -= extra;
      }
    }
    return new ConnectionPlan<>(wanted, drain);
  }

  /** Connections {@code peer} should have. */
  public int wanted(K peer) {
    return wanted.getOrDefault(peer, 0);
  }

  /** How many of {@code peer}'s usable connections must start draining now. */
  public int drain(K peer) {
    return drain.getOrDefault(peer, 0);
  }

  /**
   * Connections to open for a peer that has {@code usable} of the {@code wanted} it should have,
   * when {@code open} of the budget's {@code maxNum} are taken (draining ones count until closed).
   */
  public static int toOpen(int wanted, int usable, int open, int maxNum) {
    return Math.max(0, Math.min(wanted - usable, maxNum - open));
  }
}
