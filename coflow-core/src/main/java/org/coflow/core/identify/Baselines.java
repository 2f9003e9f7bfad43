package org.coflow.core.identify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The baselines CODA is compared with (seed 002 Table 1), as the paper describes them, without any
 * index: plain DBSCAN over all flows (ε, minPts = 1: the connected components of the ε graph, O(n²)
 * distance computations per round) and Rough-DBSCAN rebuilt from scratch each round (every flow
 * compared with every leader, O(n·k + k²)). Cluster ids are the smallest flow id of the cluster's
 * first member in input order.
 */
public final class Baselines {
  private Baselines() {}

  /** Plain DBSCAN with minPts = 1 over {@code flows}. */
  public static Map<Long, Long> dbscan(List<FlowPoint> flows, CodaMetric metric, double eps) {
    int n = flows.size();
    int[] parent = new int[n];
    for (int i = 0; i < n; i++) {
      parent[i] = i;
    }
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        if (metric.distance(flows.get(i), flows.get(j)) <= eps) {
          RoughDbscan.union(parent, i, j);
        }
      }
    }
    Map<Long, Long> out = new HashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      out.put(flows.get(i).id(), flows.get(RoughDbscan.find(parent, i)).id());
    }
    return out;
  }

  /** Rough-DBSCAN from scratch: leaders by a linear scan, then DBSCAN over the leaders. */
  public static Map<Long, Long> roughDbscan(
      List<FlowPoint> flows, CodaMetric metric, double eps, double tau) {
    List<FlowPoint> leaders = new ArrayList<>();
    List<List<Long>> followers = new ArrayList<>();
    for (FlowPoint f : flows) {
      int best = -1;
      double bestD = Double.POSITIVE_INFINITY;
      for (int l = 0; l < leaders.size(); l++) {
        double d = metric.distance(f, leaders.get(l));
        if (d <= tau && d < bestD) {
          best = l;
          bestD = d;
        }
      }
      if (best < 0) {
        leaders.add(f);
        followers.add(new ArrayList<>());
        best = leaders.size() - 1;
      }
      followers.get(best).add(f.id());
    }
    Map<Long, Long> byLeader = dbscan(leaders, metric, eps);
    Map<Long, Long> out = new HashMap<>(flows.size() * 2);
    for (int l = 0; l < leaders.size(); l++) {
      long id = byLeader.get(leaders.get(l).id());
      for (long f : followers.get(l)) {
        out.put(f, id);
      }
    }
    return out;
  }
}
