package org.coflow.testbed;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.coflow.sim.report.CdfPlot;
import org.coflow.sim.report.ChartPlot;
import org.coflow.sim.report.Json;
import org.coflow.sim.report.Stats;

/**
 * A testbed comparison as a table, JSON, CSV files and plots. A setup's figures are medians over
 * its runs (runs on one machine vary by about ±20%), and the table says how wide the runs were. The
 * ratios are checked against the data plane's targets: Courier's agents against per-reducer
 * connections (average CCT, retransmissions, the small coflows' median CCT), each policy with
 * merging against the same policy without, the best policy against the baseline, and adaptive
 * MaxNum against the fixed budgets.
 */
public final class TestbedReport {
  /** Courier without a master against per-reducer connections: average CCT. */
  static final double GOAL_COURIER = 0.90;

  /** ... and TCP retransmissions (Courier's point: fewer connections, fewer losses). */
  static final double GOAL_RETRANS = 0.5;

  /** A policy with merging against the same policy without: never much worse, ... */
  static final double GOAL_POLICY_EACH = 1.10;

  /** ... and better over the policies (geometric mean). */
  static final double GOAL_POLICY_MEAN = 0.95;

  /** The best policy with merging against per-reducer connections. */
  static final double GOAL_BEST = 0.75;

  /** Coflows under {@link #SMALL} bytes: their median CCT against the baseline's. */
  static final double GOAL_SMALL = 1.5;

  static final long SMALL = 1_000_000;

  /**
   * The agents' data-plane figures the hosts report and the report prints (times: from a block's
   * request to its first byte, on a lane or not; waiting for a connection; a lane block's wait for
   * its lane on the fetching side and for its first chunk on the serving side; the pace timer's
   * lateness), with the streams that went on lanes.
   */
  static final List<String> DATA_PLANE =
      List.of(
          "firstByte.p50",
          "firstByte.p99",
          "laneFirstByte.p50",
          "laneFirstByte.p99",
          "laneDispatchWait.p50",
          "laneServeWait.p50",
          "dispatchWait.p99",
          "resolve.p50",
          "paceLateness.p99",
          "streams",
          "laneStreams");

  private final TestbedBench.Outcome outcome;

  public TestbedReport(TestbedBench.Outcome outcome) {
    this.outcome = outcome;
  }

  /** Median over a setup's runs of its average CCT. */
  double avgCct(Setup s) {
    return median(outcome.runs().get(s), RunResult::averageCct);
  }

  double retrans(Setup s) {
    return median(outcome.runs().get(s), r -> r.total("RetransSegs"));
  }

  double timeouts(Setup s) {
    return median(outcome.runs().get(s), r -> r.total("TCPTimeouts"));
  }

  /** Median over a setup's runs of the median CCT of its coflows under {@link #SMALL} bytes. */
  double smallCct(Setup s) {
    List<Workload.Coflow> coflows = outcome.plan().workload().coflows();
    return median(
        outcome.runs().get(s),
        r -> {
          double[] cct = r.cct();
          List<Double> small = new ArrayList<>();
          for (int c = 0; c < cct.length && c < coflows.size(); c++) {
            if (coflows.get(c).bytes() < SMALL && !Double.isNaN(cct[c])) {
              small.add(cct[c]);
            }
          }
          return median(small.stream().mapToDouble(Double::doubleValue).toArray());
        });
  }

  private static double median(
      List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> f) {
    return median(runs.stream().mapToDouble(f).toArray());
  }

  private static double mean(
      List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> f) {
    return runs.stream().mapToDouble(f).average().orElse(Double.NaN);
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  private Setup find(String label) {
    for (Setup s : outcome.runs().keySet()) {
      if (s.label().equals(label)) {
        return s;
      }
    }
    return null;
  }

  /** One comparison, with its target (or none: goal NaN). */
  public record Ratio(String name, double value, double goal) {
    public boolean met() {
      return Double.isNaN(goal) || value <= goal;
    }
  }

  /** Every ratio this outcome can tell. */
  public List<Ratio> ratios() {
    List<Ratio> out = new ArrayList<>();
    Setup base = find("baseline");
    Setup courier = find("courier");
    if (base != null && courier != null) {
      out.add(
          new Ratio("avg CCT courier / baseline", avgCct(courier) / avgCct(base), GOAL_COURIER));
      out.add(
          new Ratio(
              "retransmissions courier / baseline",
              retrans(courier) / Math.max(1, retrans(base)),
              GOAL_RETRANS));
      out.add(
          new Ratio(
              "median CCT under 1 MB courier / baseline",
              smallCct(courier) / smallCct(base),
              GOAL_SMALL));
    }
    double logSum = 0;
    int policies = 0;
    Setup best = null;
    for (Setup s : outcome.runs().keySet()) {
      if (s.isBaseline() || !s.merge() || s.adaptive() || s.maxNum() != 8) {
        continue;
      }
      if (s.hasMaster() && (best == null || avgCct(s) < avgCct(best))) {
        best = s;
      }
      Setup without = find(s.hasMaster() ? "unmerged+" + s.policy() : "unmerged");
      if (without != null) {
        double r = avgCct(s) / avgCct(without);
        out.add(
            new Ratio(
                "avg CCT " + s.label() + " / " + without.label(),
                r,
                s.hasMaster() ? GOAL_POLICY_EACH : Double.NaN));
        if (s.hasMaster()) {
          logSum += Math.log(r);
          policies++;
        }
      }
    }
    if (policies > 0) {
      out.add(
          new Ratio(
              "avg CCT courier+P / unmerged+P, geometric mean of " + policies,
              Math.exp(logSum / policies),
              GOAL_POLICY_MEAN));
    }
    if (base != null && best != null) {
      out.add(
          new Ratio(
              "avg CCT best " + best.label() + " / baseline",
              avgCct(best) / avgCct(base),
              GOAL_BEST));
    }
    for (Setup adaptive : outcome.runs().keySet()) {
      if (!adaptive.adaptive()) {
        continue;
      }
      Setup fixed = null;
      Setup leastLoss = null;
      for (Setup s : outcome.runs().keySet()) {
        if (s.isBaseline()
            || !s.merge()
            || s.adaptive()
            || !java.util.Objects.equals(s.policy(), adaptive.policy())) {
          continue;
        }
        if (fixed == null || avgCct(s) < avgCct(fixed)) {
          fixed = s;
        }
        if (leastLoss == null || retrans(s) < retrans(leastLoss)) {
          leastLoss = s;
        }
      }
      if (fixed == null) {
        continue;
      }
      out.add(
          new Ratio(
              "avg CCT " + adaptive.label() + " / best fixed (" + fixed.label() + ")",
              avgCct(adaptive) / avgCct(fixed),
              1.0));
      out.add(
          new Ratio(
              "retransmissions " + adaptive.label() + " / best fixed (" + fixed.label() + ")",
              retrans(adaptive) / Math.max(1, retrans(fixed)),
              1.0));
      out.add(
          new Ratio(
              "retransmissions " + adaptive.label() + " / fewest fixed (" + leastLoss.label() + ")",
              retrans(adaptive) / Math.max(1, retrans(leastLoss)),
              Double.NaN));
    }
    return out;
  }

  public void printTable(PrintStream out) {
    TestbedBench.Plan p = outcome.plan();
    out.printf(
        Locale.ROOT,
        "testbed: %d hosts at %s, %d-byte port buffers, TCP %s, min RTO %s, notsent_lowat %s;"
            + " %s (%d coflows, %.0f MB); %d run(s) each%n",
        p.hosts(),
        org.coflow.core.config.Units.formatBitRate(p.link().bitsPerSecond() / 8),
        p.link().bufferBytes(),
        p.link().congestion(),
        p.link().rtoMinMillis() > 0 ? p.link().rtoMinMillis() + " ms" : "kernel's",
        p.link().notsentLowat() > 0 ? Long.toString(p.link().notsentLowat()) : "kernel's",
        p.workload().source(),
        p.workload().coflows().size(),
        p.workload().bytes() / 1e6,
        p.repeat());
    out.printf(
        Locale.ROOT,
        "%-30s %9s %15s %9s %9s %8s %10s %9s %10s %10s %s%n",
        "setup",
        "avg CCT",
        "runs' range",
        "p95 CCT",
        "<1MB med",
        "vs base",
        "retrans",
        "timeouts",
        "conns/host",
        "conns all",
        "intact");
    Setup base = find("baseline");
    for (Map.Entry<Setup, List<RunResult>> e : outcome.runs().entrySet()) {
      Setup s = e.getKey();
      List<RunResult> runs = e.getValue();
      double p95 = median(runs, r -> Stats.of(finite(r.cct())).p95());
      double lo = runs.stream().mapToDouble(RunResult::averageCct).min().orElse(Double.NaN);
      double hi = runs.stream().mapToDouble(RunResult::averageCct).max().orElse(Double.NaN);
      out.printf(
          Locale.ROOT,
          "%-30s %8.2fs %15s %8.2fs %8.3fs %8.3f %10.0f %9.0f %10d %10d %s%n",
          s.label(),
          avgCct(s),
          String.format(Locale.ROOT, "%.2f-%.2fs", lo, hi),
          p95,
          smallCct(s),
          base != null ? avgCct(s) / avgCct(base) : Double.NaN,
          retrans(s),
          timeouts(s),
          runs.stream().mapToInt(RunResult::peakHostConnections).max().orElse(0),
          runs.stream().mapToInt(RunResult::peakTotalConnections).max().orElse(0),
          runs.stream().allMatch(RunResult::intact) ? "yes" : "NO");
    }
    printDataPlane(out);
    for (Ratio r : ratios()) {
      out.printf(
          Locale.ROOT,
          "%-62s %6.3f%s%n",
          r.name(),
          r.value(),
          Double.isNaN(r.goal())
              ? ""
              : String.format(
                  Locale.ROOT, "  (goal <= %.2f: %s)", r.goal(), r.met() ? "met" : "NOT met"));
    }
    for (Map.Entry<Setup, List<RunResult>> e : outcome.runs().entrySet()) {
      for (RunResult r : e.getValue()) {
        for (String f : r.failures().subList(0, Math.min(5, r.failures().size()))) {
          out.println(e.getKey().label() + ": " + f);
        }
      }
    }
  }

  /**
   * A data-plane figure of a setup with agents: the median over its runs of the median over hosts
   * (times in milliseconds); NaN without agents.
   */
  double dataPlane(Setup s, String name) {
    boolean time = name.contains(".");
    return median(
        outcome.runs().get(s),
        r -> {
          long[] v = r.counters().get("dp." + name);
          if (v == null) {
            return Double.NaN;
          }
          double[] d = new double[v.length];
          for (int h = 0; h < v.length; h++) {
            d[h] = time ? v[h] / 1000.0 : v[h];
          }
          return median(d);
        });
  }

  private void printDataPlane(PrintStream out) {
    out.printf(
        Locale.ROOT,
        "%-30s %17s %17s %15s %12s %10s %12s %8s%n",
        "agents (median host, ms)",
        "1st byte p50/p99",
        "lane 1st p50/p99",
        "lane disp/serve",
        "dispatch p99",
        "resolve",
        "pace late p99",
        "on lane");
    for (Setup s : outcome.runs().keySet()) {
      if (s.isBaseline()) {
        continue;
      }
      double streams = dataPlane(s, "streams");
      out.printf(
          Locale.ROOT,
          "%-30s %17s %17s %15s %12.1f %10.2f %12.1f %7.0f%%%n",
          s.label(),
          String.format(
              Locale.ROOT,
              "%.0f/%.0f",
              dataPlane(s, "firstByte.p50"),
              dataPlane(s, "firstByte.p99")),
          String.format(
              Locale.ROOT,
              "%.0f/%.0f",
              dataPlane(s, "laneFirstByte.p50"),
              dataPlane(s, "laneFirstByte.p99")),
          String.format(
              Locale.ROOT,
              "%.0f/%.0f",
              dataPlane(s, "laneDispatchWait.p50"),
              dataPlane(s, "laneServeWait.p50")),
          dataPlane(s, "dispatchWait.p99"),
          dataPlane(s, "resolve.p50"),
          dataPlane(s, "paceLateness.p99"),
          streams > 0 ? 100 * dataPlane(s, "laneStreams") / streams : 0);
    }
  }

  static double[] finite(double[] v) {
    return Arrays.stream(v).filter(x -> !Double.isNaN(x)).toArray();
  }

  private Json dataPlaneJson(Setup s) {
    Json j = new Json();
    if (!s.isBaseline()) {
      for (String name : DATA_PLANE) {
        j.put(name.contains(".") ? name + "_ms" : name, dataPlane(s, name));
      }
    }
    return j;
  }

  public String json() {
    TestbedBench.Plan p = outcome.plan();
    Json setups = new Json();
    for (Map.Entry<Setup, List<RunResult>> e : outcome.runs().entrySet()) {
      Setup s = e.getKey();
      List<RunResult> runs = e.getValue();
      List<String> avgs = new ArrayList<>();
      for (RunResult r : runs) {
        avgs.add(String.format(Locale.ROOT, "%.4f", r.averageCct()));
      }
      setups.put(
          s.label(),
          new Json()
              .put("runs", runs.size())
              .put("avg_cct_s", avgCct(s))
              .put("avg_cct_s_per_run", avgs)
              .put("p95_cct_s", median(runs, r -> Stats.of(finite(r.cct())).p95()))
              .put("small_median_cct_s", smallCct(s))
              .put("retransmissions", retrans(s))
              .put("timeouts", timeouts(s))
              .put(
                  "peak_connections_per_host",
                  runs.stream().mapToInt(RunResult::peakHostConnections).max().orElse(0))
              .put(
                  "peak_connections_total",
                  runs.stream().mapToInt(RunResult::peakTotalConnections).max().orElse(0))
              .put("intact", runs.stream().allMatch(RunResult::intact))
              .put("data_plane", dataPlaneJson(s))
              .put("wall_s", mean(runs, RunResult::wallSeconds)));
    }
    Json ratios = new Json();
    for (Ratio r : ratios()) {
      ratios.put(
          r.name(), new Json().put("value", r.value()).put("goal", r.goal()).put("met", r.met()));
    }
    return new Json()
        .put("hosts", p.hosts())
        .put("rate_bytes_per_s", p.link().bitsPerSecond() / 8)
        .put("buffer_bytes", p.link().bufferBytes())
        .put("tcp", p.link().congestion())
        .put("rto_min_ms", p.link().rtoMinMillis())
        .put("notsent_lowat", p.link().notsentLowat())
        .put("workload", p.workload().source())
        .put("coflows", p.workload().coflows().size())
        .put("bytes", p.workload().bytes())
        .put("repeat", p.repeat())
        .put("setups", setups)
        .put("ratios", ratios)
        .toString();
  }

  /** coflows.csv, connections.csv, summary.json and the three plots. */
  public void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Workload w = outcome.plan().workload();
    try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(dir.resolve("coflows.csv")))) {
      csv.println("setup,run,coflow,trace_id,arrival_s,cct_s,bytes,flows,reducers");
      outcome
          .runs()
          .forEach(
              (s, runs) -> {
                for (int r = 0; r < runs.size(); r++) {
                  for (int c = 0; c < w.coflows().size(); c++) {
                    Workload.Coflow cf = w.coflows().get(c);
                    csv.printf(
                        Locale.ROOT,
                        "%s,%d,%d,%d,%.3f,%.6f,%d,%d,%d%n",
                        s.label(),
                        r,
                        c,
                        cf.id(),
                        cf.arrivalMs() / 1e3,
                        runs.get(r).cct()[c],
                        cf.bytes(),
                        cf.flows(),
                        cf.reducers().size());
                  }
                }
              });
    }
    try (PrintWriter csv =
        new PrintWriter(Files.newBufferedWriter(dir.resolve("connections.csv")))) {
      csv.println("setup,run,t_s,host,connections,retransmissions,timeouts,rx_bytes,tx_bytes");
      outcome
          .runs()
          .forEach(
              (s, runs) -> {
                for (int r = 0; r < runs.size(); r++) {
                  RunResult run = runs.get(r);
                  for (double[] row : run.connections()) {
                    for (int h = 1; h < row.length; h++) {
                      csv.printf(
                          Locale.ROOT,
                          "%s,%d,%.2f,%d,%.0f,,,,%n",
                          s.label(),
                          r,
                          row[0],
                          h - 1,
                          row[h]);
                    }
                  }
                  long[] rt = run.counters().getOrDefault("RetransSegs", new long[0]);
                  long[] to = run.counters().getOrDefault("TCPTimeouts", new long[0]);
                  long[] rx = run.counters().getOrDefault("rxBytes", new long[0]);
                  long[] tx = run.counters().getOrDefault("txBytes", new long[0]);
                  for (int h = 0; h < rt.length; h++) {
                    csv.printf(
                        Locale.ROOT,
                        "%s,%d,total,%d,,%d,%d,%d,%d%n",
                        s.label(),
                        r,
                        h,
                        rt[h],
                        h < to.length ? to[h] : 0,
                        h < rx.length ? rx[h] : 0,
                        h < tx.length ? tx[h] : 0);
                  }
                }
              });
    }
    Files.writeString(dir.resolve("summary.json"), json() + "\n");
    List<CdfPlot.Series> cdf = new ArrayList<>();
    List<ChartPlot.Line> conns = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    double[] retrans = new double[outcome.runs().size()];
    int i = 0;
    for (Map.Entry<Setup, List<RunResult>> e : outcome.runs().entrySet()) {
      List<Double> all = new ArrayList<>();
      for (RunResult r : e.getValue()) {
        for (double c : r.cct()) {
          all.add(c);
        }
      }
      cdf.add(
          new CdfPlot.Series(
              e.getKey().label(), all.stream().mapToDouble(Double::doubleValue).toArray()));
      RunResult first = e.getValue().get(0);
      double[] x = new double[first.connections().size()];
      double[] y = new double[x.length];
      for (int k = 0; k < x.length; k++) {
        double[] row = first.connections().get(k);
        x[k] = row[0];
        for (int h = 1; h < row.length; h++) {
          y[k] += row[h];
        }
      }
      conns.add(new ChartPlot.Line(e.getKey().label(), x, y));
      labels.add(e.getKey().label());
      retrans[i++] = retrans(e.getKey());
    }
    String where =
        String.format(
            Locale.ROOT,
            "%d hosts, %s",
            outcome.plan().hosts(),
            org.coflow.core.config.Units.formatBitRate(outcome.plan().link().bitsPerSecond() / 8));
    CdfPlot.writeSeries(dir.resolve("cct-cdf.png"), cdf, "Testbed CCT, " + where);
    ChartPlot.bars(
        dir.resolve("retransmissions.png"),
        labels,
        retrans,
        "TCP retransmitted segments per run, all hosts, " + where,
        "segments");
    ChartPlot.lines(
        dir.resolve("connections.png"),
        conns,
        "Data connections open, all hosts (first run), " + where,
        "seconds since the first arrival",
        "connections");
  }
}
