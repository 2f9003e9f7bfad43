package org.coflow.core.identify;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * CODA's incremental Rough-DBSCAN (seed 002 §3.3, Algorithm 1): flows are followers of leaders (a
 * new flow joins the nearest leader within τ, else leads itself); each round, DBSCAN with radius ε
 * and minPts = 1 runs over the leaders only, which with minPts = 1 is the connected components of
 * the graph of leaders within ε of each other; a cluster is its leaders' followers. Arrivals and
 * departures are applied as they come, so a round costs O(m·k + k²) for m changes and k leaders,
 * not O(n²).
 *
 * <p>Decisions where the paper is silent:
 *
 * <ul>
 *   <li>A new flow joins the <em>nearest</em> leader within τ (not the first found).
 *   <li>A departed leader stays as its followers' representative until the last of them leaves.
 *   <li>Leaders are kept sorted by start time, and both the τ search and the ε graph look only at
 *       leaders within the time reach of the radius ({@link CodaMetric#timeReach}): every other
 *       leader is farther by the time term alone. This index is ours; the paper names none.
 *   <li>Stable ids: a cluster's id is the flow id of its first-created leader (creation order, not
 *       start time), which does not change while that leader stands, so identities carry over
 *       rounds as long as their first flows do, even when a flow that started earlier is reported
 *       later.
 * </ul>
 */
public final class RoughDbscan {
  private static final Comparator<Leader> BY_TIME =
      Comparator.comparingDouble((Leader l) -> l.rep.startSec())
          .thenComparingLong(l -> l.rep.id())
          .thenComparingLong(l -> l.seq);

  private final CodaMetric metric;
  private final double eps;
  private final double tau;
  private final NavigableSet<Leader> leaders = new TreeSet<>(BY_TIME);
  private final Map<Long, Leader> leaderOf = new HashMap<>();

  /** A leader and the flows it stands for (itself included while it has not left). */
  static final class Leader {
    final FlowPoint rep;

    /** Tells apart a leader from a departed one of the same flow id that still has followers. */
    final long seq;

    final Set<Long> followers = new HashSet<>();

    /** The cluster id from the last {@link RoughDbscan#cluster()}; -1 before. */
    long cluster = -1;

    Leader(FlowPoint rep, long seq) {
      this.rep = rep;
      this.seq = seq;
    }
  }

  private long nextSeq;

  /**
   * @param eps DBSCAN's radius over leaders
   * @param tau the leaders' range; at most {@code eps}
   */
  public RoughDbscan(CodaMetric metric, double eps, double tau) {
    if (!(eps > 0) || !(tau >= 0) || tau > eps) {
      throw new IllegalArgumentException(
          "Rough-DBSCAN needs ε > 0 and 0 ≤ τ ≤ ε (got ε=" + eps + ", τ=" + tau + ")");
    }
    this.metric = metric;
    this.eps = eps;
    this.tau = tau;
  }

  /** Adds a flow (ignored if already present). */
  public void add(FlowPoint f) {
    if (leaderOf.containsKey(f.id())) {
      return;
    }
    Leader best = null;
    double bestD = Double.POSITIVE_INFINITY;
    for (Leader l : window(f.startSec(), metric.timeReach(tau))) {
      double d = metric.distance(f, l.rep);
      if (d <= tau && d < bestD) {
        best = l;
        bestD = d;
      }
    }
    if (best == null) {
      best = new Leader(f, nextSeq++);
      leaders.add(best);
    }
    best.followers.add(f.id());
    leaderOf.put(f.id(), best);
  }

  /** Removes a departed flow (ignored if unknown). */
  public void remove(long flowId) {
    Leader l = leaderOf.remove(flowId);
    if (l == null) {
      return;
    }
    l.followers.remove(flowId);
    if (l.followers.isEmpty()) {
      leaders.remove(l);
    }
  }

  private NavigableSet<Leader> window(double start, double reach) {
    Leader lo =
        new Leader(new FlowPoint(Long.MIN_VALUE, start - reach, 0, 0, 0, false, 0), Long.MIN_VALUE);
    Leader hi =
        new Leader(new FlowPoint(Long.MAX_VALUE, start + reach, 0, 0, 0, false, 0), Long.MAX_VALUE);
    return leaders.subSet(lo, true, hi, true);
  }

  /**
   * One round's clustering: DBSCAN(ε, minPts = 1) over the leaders, O(k·w) for k leaders with w in
   * a leader's time reach. Afterwards {@link #clusterOf} answers per flow in O(1).
   */
  public void cluster() {
    List<Leader> sorted = new ArrayList<>(leaders);
    int k = sorted.size();
    int[] parent = new int[k];
    for (int i = 0; i < k; i++) {
      parent[i] = i;
    }
    double reach = metric.timeReach(eps);
    for (int i = 0; i < k; i++) {
      Leader a = sorted.get(i);
      for (int j = i + 1; j < k; j++) {
        Leader b = sorted.get(j);
        if (b.rep.startSec() - a.rep.startSec() > reach) {
          break;
        }
        if (metric.distance(a.rep, b.rep) <= eps) {
          union(parent, i, j);
        }
      }
    }
    // A component's id is its first-created leader's flow id: creation order, not start time, so
    // that a flow reported late with an earlier start cannot rename a cluster its peers joined.
    int[] first = new int[k];
    java.util.Arrays.fill(first, -1);
    for (int i = 0; i < k; i++) {
      int r = find(parent, i);
      if (first[r] < 0 || sorted.get(i).seq < sorted.get(first[r]).seq) {
        first[r] = i;
      }
    }
    for (int i = 0; i < k; i++) {
      sorted.get(i).cluster = sorted.get(first[find(parent, i)]).rep.id();
    }
  }

  /**
   * The cluster of a present flow as of the last {@link #cluster()} (-1 if it joined since, or is
   * unknown).
   */
  public long clusterOf(long flowId) {
    Leader l = leaderOf.get(flowId);
    return l == null ? -1 : l.cluster;
  }

  /** Clusters and returns flow id → cluster id for every present flow. */
  public Map<Long, Long> clusters() {
    cluster();
    return assignments();
  }

  /** Flow id → cluster id for every present flow, as of the last {@link #cluster()}. */
  public Map<Long, Long> assignments() {
    Map<Long, Long> out = new HashMap<>(leaderOf.size() * 2);
    for (Leader l : leaders) {
      for (long f : l.followers) {
        out.put(f, l.cluster);
      }
    }
    return out;
  }

  static int find(int[] parent, int i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  static void union(int[] parent, int a, int b) {
    int ra = find(parent, a);
    int rb = find(parent, b);
    if (ra != rb) {
      parent[Math.max(ra, rb)] = Math.min(ra, rb);
    }
  }

  /** The leader a present flow follows (its representative for late binding), or null. */
  Leader leaderOf(long flowId) {
    return leaderOf.get(flowId);
  }

  /**
   * Calls {@code visit} with every leader within {@code radius} of {@code l} (itself included),
   * looking only at leaders in the radius' time reach.
   */
  void forEachNeighbour(Leader l, double radius, java.util.function.Consumer<Leader> visit) {
    for (Leader m : window(l.rep.startSec(), metric.timeReach(radius))) {
      if (m == l || metric.distance(l.rep, m.rep) <= radius) {
        visit.accept(m);
      }
    }
  }

  /** Leaders now (k). */
  public int leaders() {
    return leaders.size();
  }

  /** Flows now (n). */
  public int flows() {
    return leaderOf.size();
  }
}
