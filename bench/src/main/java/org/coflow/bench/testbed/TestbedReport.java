package org.coflow.bench.testbed;

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
import org.coflow.bench.report.CdfPlot;
import org.coflow.bench.report.ChartPlot;
import org.coflow.bench.report.Json;
import org.coflow.bench.report.Stats;

/**
 * A testbed comparison as a table, JSON, CSV files and plots. Ratios compare means over a setup's
 * runs; the goals are checked beside them: Courier + fair against the baseline (average
 * CCT, retransmissions), each policy with merging against the same policy without, and adaptive
 * MaxNum against the fixed budgets.
 */
public final class TestbedReport {
  /** Goals from Courier's paper (seed 003: §5.1.1 -22%, §5.3 -16% Aalo and -29% Sincronia). */
  static final double GOAL_FAIR = 0.78;

  static final double GOAL_RETRANS = 0.2;
  static final Map<String, Double> GOAL_POLICY = Map.of("aalo", 0.84, "sincronia", 0.71);

  private final TestbedBench.Outcome outcome;

  public TestbedReport(TestbedBench.Outcome outcome) {
    this.outcome = outcome;
  }

  /** Mean over a setup's runs of its average CCT. */
  double avgCct(Setup s) {
    return mean(outcome.runs().get(s), RunResult::averageCct);
  }

  double retrans(Setup s) {
    return mean(outcome.runs().get(s), r -> r.total("RetransSegs"));
  }

  double timeouts(Setup s) {
    return mean(outcome.runs().get(s), r -> r.total("TCPTimeouts"));
  }

  private static double mean(
      List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> f) {
    double sum = 0;
    for (RunResult r : runs) {
      sum += f.applyAsDouble(r);
    }
    return runs.isEmpty() ? Double.NaN : sum / runs.size();
  }

  private Setup find(String label) {
    for (Setup s : outcome.runs().keySet()) {
      if (s.label().equals(label)) {
        return s;
      }
    }
    return null;
  }

  /** One comparison the issue sets a goal for (or none: goal NaN). */
  public record Ratio(String name, double value, double goal) {
    public boolean met() {
      return Double.isNaN(goal) || value <= goal;
    }
  }

  /** Every ratio this outcome can tell. */
  public List<Ratio> ratios() {
    List<Ratio> out = new ArrayList<>();
    Setup base = find("baseline");
    for (String name : List.of("courier", "courier+fair")) {
      Setup fair = find(name);
      if (base != null && fair != null) {
        out.add(
            new Ratio("avg CCT " + name + " / baseline", avgCct(fair) / avgCct(base), GOAL_FAIR));
        out.add(
            new Ratio(
                "retransmissions " + name + " / baseline",
                retrans(fair) / Math.max(1, retrans(base)),
                GOAL_RETRANS));
      }
    }
    for (Setup s : outcome.runs().keySet()) {
      if (s.isBaseline() || !s.merge() || s.adaptive() || s.maxNum() != 8) {
        continue;
      }
      Setup without = find(s.hasMaster() ? "unmerged+" + s.policy() : "unmerged");
      if (without != null) {
        out.add(
            new Ratio(
                "avg CCT " + s.label() + " / " + without.label(),
                avgCct(s) / avgCct(without),
                GOAL_POLICY.getOrDefault(s.policy(), Double.NaN)));
      }
    }
    for (Setup adaptive : outcome.runs().keySet()) {
      if (!adaptive.adaptive()) {
        continue;
      }
      Setup best = null;
      Setup leastLoss = null;
      for (Setup s : outcome.runs().keySet()) {
        if (s.isBaseline()
            || !s.merge()
            || s.adaptive()
            || !java.util.Objects.equals(s.policy(), adaptive.policy())) {
          continue;
        }
        if (best == null || avgCct(s) < avgCct(best)) {
          best = s;
        }
        if (leastLoss == null || retrans(s) < retrans(leastLoss)) {
          leastLoss = s;
        }
      }
      if (best == null) {
        continue;
      }
      out.add(
          new Ratio(
              "avg CCT " + adaptive.label() + " / best fixed (" + best.label() + ")",
              avgCct(adaptive) / avgCct(best),
              1.0));
      out.add(
          new Ratio(
              "retransmissions " + adaptive.label() + " / best fixed (" + best.label() + ")",
              retrans(adaptive) / Math.max(1, retrans(best)),
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
        org.coflow.api.config.Units.formatBitRate(p.link().bitsPerSecond() / 8),
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
        "%-30s %9s %9s %8s %10s %9s %10s %10s %s%n",
        "setup",
        "avg CCT",
        "p95 CCT",
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
      double p95 = mean(runs, r -> Stats.of(finite(r.cct())).p95());
      out.printf(
          Locale.ROOT,
          "%-30s %8.2fs %8.2fs %8.3f %10.0f %9.0f %10d %10d %s%n",
          s.label(),
          avgCct(s),
          p95,
          base != null ? avgCct(s) / avgCct(base) : Double.NaN,
          retrans(s),
          timeouts(s),
          runs.stream().mapToInt(RunResult::peakHostConnections).max().orElse(0),
          runs.stream().mapToInt(RunResult::peakTotalConnections).max().orElse(0),
          runs.stream().allMatch(RunResult::intact) ? "yes" : "NO");
    }
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

  static double[] finite(double[] v) {
    return Arrays.stream(v).filter(x -> !Double.isNaN(x)).toArray();
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
              .put("p95_cct_s", mean(runs, r -> Stats.of(finite(r.cct())).p95()))
              .put("retransmissions", retrans(s))
              .put("timeouts", timeouts(s))
              .put(
                  "peak_connections_per_host",
                  runs.stream().mapToInt(RunResult::peakHostConnections).max().orElse(0))
              .put(
                  "peak_connections_total",
                  runs.stream().mapToInt(RunResult::peakTotalConnections).max().orElse(0))
              .put("intact", runs.stream().allMatch(RunResult::intact))
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
            org.coflow.api.config.Units.formatBitRate(outcome.plan().link().bitsPerSecond() / 8));
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
