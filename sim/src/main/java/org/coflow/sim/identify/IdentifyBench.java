package org.coflow.sim.identify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.coflow.core.identify.Accuracy;
import org.coflow.core.identify.Baselines;
import org.coflow.core.identify.CodaMetric;
import org.coflow.core.identify.Communities;
import org.coflow.core.identify.FlowPoint;
import org.coflow.core.identify.RoughDbscan;

/**
 * Replays a labelled workload round by round (every Δ of trace time: the flows that started join,
 * the flows that ended leave) through CODA's incremental Rough-DBSCAN, timing each round with
 * arrivals (departure-only rounds' cost carried into the next) and scoring its clusters of the
 * flows present against the truth. The baselines (Rough-DBSCAN rebuilt from scratch, plain DBSCAN)
 * run on a capped number of those rounds, spread evenly over the replay, and CODA's figures on
 * exactly those rounds are reported next to theirs. Precision and recall are flow-weighted.
 */
public final class IdentifyBench {
  /** One algorithm's figures. */
  public record Result(
      String algorithm,
      int flows,
      double precision,
      double recall,
      double roundMs,
      double maxRoundMs,
      int rounds,
      int meanPresent) {}

  private IdentifyBench() {}

  /**
   * @param departure when each flow leaves the identifier (its coflow's end, see {@link
   *     #departures})
   * @param dbscanRounds how many rounds plain DBSCAN runs (spread over the replay); 0 skips it
   * @param depart whether flows leave when their coflow ends ({@link #departures}); without, the
   *     identifier holds every flow seen so far (the heaviest case: n grows to all flows)
   */
  public static List<Result> run(
      List<IdentifyWorkload.Flow> flows,
      CodaMetric metric,
      double eps,
      double tau,
      double deltaSec,
      int dbscanRounds,
      int rdbscanRounds,
      boolean depart) {
    Map<Long, String> truth = new HashMap<>();
    Map<Long, Double> leave = departures(flows);
    Communities communities = new Communities();
    for (IdentifyWorkload.Flow f : flows) {
      truth.put(f.id(), f.coflow());
      communities.observe(f.src(), f.dst());
    }
    // Rounds with arrivals, to spread the baselines' capped rounds evenly over the replay.
    int scored = 0;
    {
      int i = 0;
      double tt = flows.isEmpty() ? 0 : flows.get(0).startSec();
      while (i < flows.size()) {
        tt += deltaSec;
        int before = i;
        while (i < flows.size() && flows.get(i).startSec() <= tt) {
          i++;
        }
        if (i > before) {
          scored++;
        }
      }
    }
    java.util.Set<Integer> dbscanAt = sample(scored, dbscanRounds);
    java.util.Set<Integer> roughAt = sample(scored, rdbscanRounds);
    RoughDbscan coda = new RoughDbscan(metric, eps, tau);
    Map<Long, FlowPoint> present = new LinkedHashMap<>();
    PriorityQueue<double[]> ends = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
    Score ours = new Score();
    Score oursAtDbscan = new Score();
    Score oursAtRough = new Score();
    Score rough = new Score();
    Score plain = new Score();
    int next = 0;
    double t = flows.isEmpty() ? 0 : flows.get(0).startSec();
    int round = 0;
    long carried = 0;
    while (next < flows.size()) {
      t += deltaSec;
      long t0 = System.nanoTime();
      int added = 0;
      while (next < flows.size() && flows.get(next).startSec() <= t) {
        IdentifyWorkload.Flow f = flows.get(next++);
        FlowPoint p =
            new FlowPoint(
                f.id(),
                f.startSec(),
                f.src(),
                f.dst(),
                f.dstPort(),
                f.hadoop(),
                communities.of(f.src()));
        present.put(f.id(), p);
        coda.add(p);
        if (depart) {
          ends.add(new double[] {leave.get(f.id()), f.id()});
        }
        added++;
      }
      while (!ends.isEmpty() && ends.peek()[0] <= t) {
        long id = (long) ends.poll()[1];
        present.remove(id);
        coda.remove(id);
      }
      if (added == 0) {
        // Departures only: their cost counts into the next scored round.
        carried += System.nanoTime() - t0;
        continue;
      }
      coda.cluster();
      long ns = System.nanoTime() - t0 + carried;
      carried = 0;
      // Scoring needs every flow's cluster; the identifier itself answers per flow in O(1).
      Map<Long, Long> found = coda.assignments();
      Accuracy acc = Accuracy.of(found, truth);
      ours.add(ns, acc, present.size());
      List<FlowPoint> now = new ArrayList<>(present.values());
      if (roughAt.contains(round)) {
        oursAtRough.add(ns, acc, now.size());
        long t1 = System.nanoTime();
        Map<Long, Long> r = Baselines.roughDbscan(now, metric, eps, tau);
        rough.add(System.nanoTime() - t1, Accuracy.of(r, truth), now.size());
      }
      if (dbscanAt.contains(round)) {
        oursAtDbscan.add(ns, acc, now.size());
        long t2 = System.nanoTime();
        Map<Long, Long> d = Baselines.dbscan(now, metric, eps);
        plain.add(System.nanoTime() - t2, Accuracy.of(d, truth), now.size());
      }
      round++;
    }
    List<Result> out = new ArrayList<>();
    out.add(ours.result("coda", flows.size()));
    if (rough.rounds > 0) {
      out.add(rough.result("r-dbscan", flows.size()));
      out.add(oursAtRough.result("coda@r-dbscan-rounds", flows.size()));
    }
    if (plain.rounds > 0) {
      out.add(plain.result("dbscan", flows.size()));
      out.add(oursAtDbscan.result("coda@dbscan-rounds", flows.size()));
    }
    return out;
  }

  /** {@code k} of the rounds 0..n-1, evenly spread (the middle of k equal parts). */
  static java.util.Set<Integer> sample(int n, int k) {
    java.util.Set<Integer> out = new java.util.HashSet<>();
    for (int i = 0; i < Math.min(k, n); i++) {
      out.add((int) Math.floor((i + 0.5) * n / Math.min(k, n)));
    }
    return out;
  }

  /**
   * When each flow leaves: its coflow ends when its last flow has started and its largest flow has
   * moved at 100 Mbit/s (a 1 Gbit/s port shared ten ways); a coflow's flows leave together, so a
   * coflow is whole while it is present.
   */
  static Map<Long, Double> departures(List<IdentifyWorkload.Flow> flows) {
    Map<String, double[]> span = new HashMap<>();
    for (IdentifyWorkload.Flow f : flows) {
      double bytesTime = (f.endSec() - f.startSec()) * 10;
      span.merge(
          f.coflow(),
          new double[] {f.startSec(), bytesTime},
          (a, b) -> new double[] {Math.max(a[0], b[0]), Math.max(a[1], b[1])});
    }
    Map<Long, Double> out = new HashMap<>();
    for (IdentifyWorkload.Flow f : flows) {
      double[] s = span.get(f.coflow());
      out.put(f.id(), s[0] + s[1]);
    }
    return out;
  }

  private static final class Score {
    double precision;
    double recall;
    long weight;
    double nanos;
    double maxNanos;
    int rounds;
    long presentSum;

    void add(long ns, Accuracy a, int present) {
      precision += a.precision() * a.flows();
      recall += a.recall() * a.flows();
      weight += a.flows();
      nanos += ns;
      maxNanos = Math.max(maxNanos, ns);
      rounds++;
      presentSum += present;
    }

    Result result(String name, int flows) {
      return new Result(
          name,
          flows,
          weight == 0 ? 1 : precision / weight,
          weight == 0 ? 1 : recall / weight,
          rounds == 0 ? 0 : nanos / rounds / 1e6,
          maxNanos / 1e6,
          rounds,
          rounds == 0 ? 0 : (int) (presentSum / rounds));
    }
  }
}
