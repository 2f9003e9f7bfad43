package org.coflow.core.identify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;

/**
 * CODA's identification as a scheduler runs it online (seed 002 §3): flows arrive, each round
 * clusters them with incremental Rough-DBSCAN, each new flow takes its cluster as its coflow, and
 * flows leave when they end. Shared by the live master and the simulator.
 *
 * <p>Decisions where the paper is silent:
 *
 * <ul>
 *   <li><b>A flow's coflow is decided once</b>, in the round it arrives, from the clusters of that
 *       round; it is not moved when later flows merge or split clusters. Moving flows in flight
 *       would change their coflow's bytes sent and so its queue under the agents' feet. Clusters
 *       keep stable ids (their oldest leader), so later flows of a cluster join the same coflow;
 *       boundary errors are what late binding is for.
 *   <li>A flow's <b>community</b> is taken when its round runs, after every flow of the round has
 *       been observed, so that a coflow's first flows already see the hosts it connects.
 *   <li><b>Late binding's distance</b> d(f, C), the minimum over C's flows, is taken between
 *       leaders: f is within d of C when f's leader is within d of the leader of one of C's flows.
 *       This is exact up to τ at either end. A recomputation costs O(n) to group the model's n
 *       flows by leader, O(k·w) for the k leaders with flows and the w leaders in a leader's time
 *       reach, plus the size of the extensions; the exact minimum would be O(n²) (the paper leaves
 *       the cost open and names leaders as the obvious speedup). It is recomputed only when flows
 *       or coflows arrive.
 * </ul>
 */
public final class CodaIdentifier {
  private final RoughDbscan clusters;
  private final Communities communities = new Communities();
  private final List<Pending> pending = new ArrayList<>();

  /** The last extension, valid while the model's membership and the diameter stay the same. */
  private ClusterState cachedState;

  private long cachedVersion = -1;
  private double cachedDiameter = Double.NaN;
  private List<Flow>[] cached;

  private static final class Pending {
    private final long id;

    private final double startSec;

    private final int src;

    private final int dst;

    private final int dstPort;

    private final boolean hadoop;

    Pending(long id, double startSec, int src, int dst, int dstPort, boolean hadoop) {
      this.id = id;
      this.startSec = startSec;
      this.src = src;
      this.dst = dst;
      this.dstPort = dstPort;
      this.hadoop = hadoop;
    }

    long id() {
      return id;
    }

    double startSec() {
      return startSec;
    }

    int src() {
      return src;
    }

    int dst() {
      return dst;
    }

    int dstPort() {
      return dstPort;
    }

    boolean hadoop() {
      return hadoop;
    }
  }

  public CodaIdentifier(CodaMetric metric, double eps, double tau) {
    this.clusters = new RoughDbscan(metric, eps, tau);
  }

  /** A new flow; it gets its cluster at the next {@link #round()}. */
  public void add(long id, double startSec, int src, int dst, int dstPort, boolean hadoop) {
    communities.observe(src, dst);
    pending.add(new Pending(id, startSec, src, dst, dstPort, hadoop));
  }

  /** Adds the flows since the last round and clusters: every present flow then has a cluster. */
  public void round() {
    for (Pending p : pending) {
      clusters.add(
          new FlowPoint(
              p.id, p.startSec, p.src, p.dst, p.dstPort, p.hadoop, communities.of(p.src)));
    }
    pending.clear();
    clusters.cluster();
  }

  /** The cluster of a present flow as of the last round (-1 if unknown or not clustered yet). */
  public long clusterOf(long id) {
    return clusters.clusterOf(id);
  }

  /** A flow that ended leaves the identifier. */
  public void remove(long id) {
    clusters.remove(id);
    pending.removeIf(p -> p.id == id);
  }

  /** Flows present (clustered). */
  public int flows() {
    return clusters.flows();
  }

  /**
   * Late binding's extension of the model's coflows (see {@link
   * org.coflow.core.policy.CoflowExtension}).
   *
   * <p>The extension only changes when flows or coflows arrive (the model's membership version):
   * between arrivals the last one is reused, less the flows that finished since. (A leader whose
   * flows all finished can no longer link two coflows; the links it made only join flows that are
   * gone too, or remain valid up to τ.)
   *
   * @param idOf the identifier's id of a model flow, or -1 for a flow it does not hold (a flow with
   *     a known coflow): such flows neither extend nor are extended
   */
  public List<Flow>[] extend(ClusterState state, ToLongFunction<Flow> idOf, double diameter) {
    if (state == cachedState
        && state.membershipVersion() == cachedVersion
        && diameter == cachedDiameter
        && cached.length == state.coflows().size()) {
      for (int i = 0; i < cached.length; i++) {
        if (cached[i] != null) {
          cached[i].removeIf(Flow::finished);
        }
      }
      return cached;
    }
    cached = compute(state, idOf, diameter);
    cachedState = state;
    cachedVersion = state.membershipVersion();
    cachedDiameter = diameter;
    return cached;
  }

  private List<Flow>[] compute(ClusterState state, ToLongFunction<Flow> idOf, double diameter) {
    // Model flows by leader, and by coflow within a leader.
    Map<RoughDbscan.Leader, Map<Coflow, List<Flow>>> groups = new IdentityHashMap<>();
    for (Flow f : state.flows()) {
      long id = idOf.applyAsLong(f);
      RoughDbscan.Leader l = id < 0 ? null : clusters.leaderOf(id);
      if (l != null) {
        groups
            .computeIfAbsent(l, k -> new IdentityHashMap<>())
            .computeIfAbsent(f.coflow(), k -> new ArrayList<>())
            .add(f);
      }
    }
    Map<Coflow, LinkedHashSet<Flow>> extra = new HashMap<>();
    Map<Coflow, java.util.Set<RoughDbscan.Leader>> visited = new HashMap<>();
    List<RoughDbscan.Leader> near = new ArrayList<>();
    for (Map.Entry<RoughDbscan.Leader, Map<Coflow, List<Flow>>> e : groups.entrySet()) {
      near.clear();
      clusters.forEachNeighbour(
          e.getKey(),
          diameter,
          m -> {
            if (groups.containsKey(m)) {
              near.add(m);
            }
          });
      for (Coflow c : e.getValue().keySet()) {
        for (RoughDbscan.Leader m : near) {
          Map<Coflow, List<Flow>> there = groups.get(m);
          if (there.size() == 1 && there.containsKey(c)) {
            continue;
          }
          // Each neighbour's flows are added to a coflow once, however many of its leaders see it.
          if (!visited
              .computeIfAbsent(c, k -> java.util.Collections.newSetFromMap(new IdentityHashMap<>()))
              .add(m)) {
            continue;
          }
          for (Map.Entry<Coflow, List<Flow>> other : there.entrySet()) {
            if (other.getKey() != c) {
              extra.computeIfAbsent(c, k -> new LinkedHashSet<>()).addAll(other.getValue());
            }
          }
        }
      }
    }
    @SuppressWarnings("unchecked")
    List<Flow>[] out = new List[state.coflows().size()];
    extra.forEach((c, flows) -> out[c.index()] = new ArrayList<>(flows));
    return out;
  }
}
