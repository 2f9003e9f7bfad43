package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.coflow.core.config.Units;
import org.coflow.sim.report.CdfPlot;
import org.coflow.sim.report.Json;
import org.coflow.sim.report.Stats;

/**
 * A Spark testbed comparison as a table, JSON, a CSV of every job and a CDF plot. A setup's figures
 * are medians over its rounds; its ratios to stock Spark are taken round by round (both setups ran
 * back to back on the same machine) and their median shown. Jobs fall into two halves by shuffle
 * bytes (the trace's, or the stock run's remote bytes for queries): "small" is the bottom half.
 */
public final class SparkTestbedReport {
  private final SparkTestbed.Plan plan;
  private final List<SparkTestbed.Run> runs;
  private final Map<String, List<SparkTestbed.Run>> bySetup = new LinkedHashMap<>();
  private final Set<String> small = new HashSet<>();
  private final Map<String, String> reference = new LinkedHashMap<>();

  public SparkTestbedReport(SparkTestbed.Plan plan, List<SparkTestbed.Run> runs) {
    this.plan = plan;
    this.runs = runs;
    for (SparkTestbed.Run r : runs) {
      bySetup.computeIfAbsent(r.setup().name(), k -> new ArrayList<>()).add(r);
    }
    // Bytes per job: the first run that knows them (stock comes first when it ran).
    Map<String, Long> bytes = new LinkedHashMap<>();
    List<SparkTestbed.Run> ordered = new ArrayList<>(runs);
    ordered.sort(Comparator.comparing(r -> r.setup().plugin()));
    for (SparkTestbed.Run r : ordered) {
      for (SparkTestbed.Job j : r.jobs()) {
        if (j.bytes() > 0) {
          bytes.putIfAbsent(j.id(), j.bytes());
        }
        if (j.digest() != null) {
          reference.putIfAbsent(j.id(), j.digest());
        }
      }
    }
    List<Map.Entry<String, Long>> sorted = new ArrayList<>(bytes.entrySet());
    sorted.sort(Map.Entry.comparingByValue());
    for (int i = 0; i < sorted.size() / 2; i++) {
      small.add(sorted.get(i).getKey());
    }
  }

  private static double[] seconds(SparkTestbed.Run r, java.util.function.Predicate<String> which) {
    return r.jobs().stream()
        .filter(j -> j.failure() == null && which.test(j.id()))
        .mapToDouble(SparkTestbed.Job::seconds)
        .toArray();
  }

  private double avg(SparkTestbed.Run r) {
    return Stats.of(seconds(r, id -> true)).avg();
  }

  private double p95(SparkTestbed.Run r) {
    return Stats.of(seconds(r, id -> true)).p95();
  }

  private double smallAvg(SparkTestbed.Run r) {
    return Stats.of(seconds(r, small::contains)).avg();
  }

  private double largeAvg(SparkTestbed.Run r) {
    return Stats.of(seconds(r, id -> !small.contains(id))).avg();
  }

  /** Jobs of a run whose result differs from the reference (the first run's that has it). */
  private int differing(SparkTestbed.Run r) {
    int n = 0;
    for (SparkTestbed.Job j : r.jobs()) {
      if (j.digest() != null && !j.digest().equals(reference.get(j.id()))) {
        n++;
      }
    }
    return n;
  }

  private static int failed(SparkTestbed.Run r) {
    return (int) r.jobs().stream().filter(j -> j.failure() != null).count();
  }

  private static double median(double[] v) {
    double[] s = Arrays.stream(v).filter(x -> !Double.isNaN(x)).sorted().toArray();
    int n = s.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  private double median(String setup, ToDoubleFunction<SparkTestbed.Run> f) {
    return median(bySetup.get(setup).stream().mapToDouble(f).toArray());
  }

  /** The median over rounds of setup's figure over stock's of the same round. */
  public double ratio(String setup, ToDoubleFunction<SparkTestbed.Run> f) {
    List<SparkTestbed.Run> base = bySetup.get("stock");
    if (base == null) {
      return Double.NaN;
    }
    List<Double> ratios = new ArrayList<>();
    for (SparkTestbed.Run r : bySetup.get(setup)) {
      for (SparkTestbed.Run b : base) {
        if (b.round() == r.round()) {
          ratios.add(f.applyAsDouble(r) / f.applyAsDouble(b));
        }
      }
    }
    return median(ratios.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** Setup's average job time over stock's. */
  public double avgRatio(String setup) {
    return ratio(setup, this::avg);
  }

  public double p95Ratio(String setup) {
    return ratio(setup, this::p95);
  }

  public double smallRatio(String setup) {
    return ratio(setup, this::smallAvg);
  }

  /** Jobs that failed or whose results differ, over every run. */
  public int wrongJobs() {
    return runs.stream().mapToInt(r -> failed(r) + differing(r)).sum();
  }

  /** Everything that went wrong in the runs, in words. */
  public List<String> problems() {
    List<String> out = new ArrayList<>();
    for (SparkTestbed.Run r : runs) {
      String at = r.setup().name() + " round " + r.round() + ": ";
      r.problems().forEach(p -> out.add(at + p));
      for (SparkTestbed.Job j : r.jobs()) {
        if (j.failure() != null) {
          out.add(at + "job " + j.id() + " failed: " + j.failure());
        } else if (!j.digest().equals(reference.get(j.id()))) {
          out.add(
              at + "job " + j.id() + " returned " + j.digest() + ", not " + reference.get(j.id()));
        }
      }
      if (r.setup().plugin() && r.executors().getOrDefault("fallbacks", 0L) > 0) {
        out.add(at + r.executors().get("fallbacks") + " reduce tasks fell back to Spark's fetch");
      }
    }
    return out;
  }

  private double taskSeconds(String setup, ToDoubleFunction<SparkTestbed.Job> f) {
    return median(setup, r -> r.jobs().stream().mapToDouble(f).sum());
  }

  private long medianLong(String setup, ToDoubleFunction<SparkTestbed.Run> f) {
    return Math.round(median(setup, f));
  }

  private static long agentStreams(SparkTestbed.Run r) {
    return r.agents().stream().mapToLong(a -> Long.parseLong(a.getOrDefault("streams", "0"))).sum();
  }

  public void printTable(PrintStream out) {
    out.printf(
        Locale.ROOT,
        "Spark %s on %d hosts at %s (%s), %s; medians of %d round(s)%n",
        plan.spark(),
        plan.hosts(),
        Units.formatBitRate(plan.link().bitsPerSecond() / 8),
        plan.link().congestion(),
        plan.tenants().describe(),
        plan.repeat());
    out.printf(
        Locale.ROOT,
        "%-10s %8s %8s %8s %8s %7s %7s %7s %8s %6s %7s %7s %6s %5s %6s %5s %5s %s%n",
        "setup",
        "avg s",
        "p95 s",
        "small s",
        "large s",
        "avg/st",
        "p95/st",
        "sml/st",
        "fetchw s",
        "gc s",
        "deser s",
        "retrans",
        "t/outs",
        "conns",
        "drv MB",
        "cpu%",
        "link%",
        "jobs ok");
    for (String s : bySetup.keySet()) {
      List<SparkTestbed.Run> rs = bySetup.get(s);
      int jobs = rs.stream().mapToInt(r -> r.jobs().size()).sum();
      int wrong = rs.stream().mapToInt(r -> failed(r) + differing(r)).sum();
      // Out of every job submitted: an application that died takes its jobs with it.
      int submitted = rs.stream().mapToInt(r -> Math.max(r.submitted(), r.jobs().size())).sum();
      out.printf(
          Locale.ROOT,
          "%-10s %8.2f %8.2f %8.2f %8.2f %7.2f %7.2f %7.2f %8.1f %6.1f %7.1f %7d %6d %5d %6.0f %5.0f %5.0f"
              + " %d/%d%n",
          s,
          median(s, this::avg),
          median(s, this::p95),
          median(s, this::smallAvg),
          median(s, this::largeAvg),
          avgRatio(s),
          p95Ratio(s),
          smallRatio(s),
          taskSeconds(s, SparkTestbed.Job::fetchWaitSeconds),
          taskSeconds(s, SparkTestbed.Job::gcSeconds),
          taskSeconds(s, SparkTestbed.Job::deserializeSeconds),
          medianLong(s, r -> r.net().retransmissions()),
          medianLong(s, r -> r.net().timeouts()),
          medianLong(s, r -> r.net().maxConnectionsPerHost()),
          median(s, r -> r.net().rootLinkBytes() / 1e6),
          median(s, r -> 100 * r.net().cpuBusy()),
          median(s, r -> 100 * r.net().busiestLinkUtilisation()),
          jobs - wrong,
          submitted);
    }
    out.println(
        "avg/p95/small/large: job time from the event log (submission to end); x/st: median over"
            + " rounds of the setup over stock in the same round; fetchw, gc, deser: the tasks' fetch"
            + " wait, garbage collection and deserialisation (with their broadcast), summed; retrans, t/outs: TCP, all hosts; conns: most established connections of one"
            + " host; drv MB: driver and master link; cpu%: machine; link%: busiest host link while"
            + " jobs ran");
    List<String> p = problems();
    if (!p.isEmpty()) {
      out.println("problems:");
      p.forEach(x -> out.println("  " + x));
    }
  }

  public String json() {
    Json setups = new Json();
    for (String s : bySetup.keySet()) {
      List<SparkTestbed.Run> rs = bySetup.get(s);
      List<String> avgs = new ArrayList<>();
      for (SparkTestbed.Run r : rs) {
        avgs.add(String.format(Locale.ROOT, "%.4f", avg(r)));
      }
      setups.put(
          s,
          new Json()
              .put("rounds", rs.size())
              .put("avg_job_s", median(s, this::avg))
              .put("avg_job_s_per_round", avgs)
              .put("p95_job_s", median(s, this::p95))
              .put("small_avg_job_s", median(s, this::smallAvg))
              .put("large_avg_job_s", median(s, this::largeAvg))
              .put("avg_ratio_to_stock", avgRatio(s))
              .put("p95_ratio_to_stock", p95Ratio(s))
              .put("small_ratio_to_stock", smallRatio(s))
              .put("fetch_wait_s", taskSeconds(s, SparkTestbed.Job::fetchWaitSeconds))
              .put("gc_s", taskSeconds(s, SparkTestbed.Job::gcSeconds))
              .put("deserialize_s", taskSeconds(s, SparkTestbed.Job::deserializeSeconds))
              .put("retransmissions", medianLong(s, r -> r.net().retransmissions()))
              .put("timeouts", medianLong(s, r -> r.net().timeouts()))
              .put("max_connections_per_host", medianLong(s, r -> r.net().maxConnectionsPerHost()))
              .put("driver_link_bytes", medianLong(s, r -> r.net().rootLinkBytes()))
              .put("cpu_busy", median(s, r -> r.net().cpuBusy()))
              .put("busiest_link_utilisation", median(s, r -> r.net().busiestLinkUtilisation()))
              .put("host_agent_streams", medianLong(s, SparkTestbedReport::agentStreams))
              .put("fallbacks", medianLong(s, r -> r.executors().getOrDefault("fallbacks", 0L)))
              .put(
                  "reads_through_agents",
                  medianLong(s, r -> r.executors().getOrDefault("readsThroughAgents", 0L)))
              .put(
                  "jobs_failed_or_different",
                  rs.stream().mapToInt(r -> failed(r) + differing(r)).sum()));
    }
    return new Json()
        .put("spark", plan.spark())
        .put("hosts", plan.hosts())
        .put("link_bits_per_second", plan.link().bitsPerSecond())
        .put("congestion", plan.link().congestion())
        .put("workload", plan.tenants().describe())
        .put("rounds", plan.repeat())
        .put("setups", setups)
        .put("problems", problems())
        .toString();
  }

  /** jobs.csv, summary.json and job-cdf.png into {@code dir}. */
  public void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    List<String> csv = new ArrayList<>();
    csv.add(
        "setup,round,app,job,bytes,small,seconds,fetch_wait_s,gc_s,deserialize_s,digest,equal,"
            + "failure");
    List<CdfPlot.Series> cdf = new ArrayList<>();
    for (String s : bySetup.keySet()) {
      List<Double> all = new ArrayList<>();
      for (SparkTestbed.Run r : bySetup.get(s)) {
        for (SparkTestbed.Job j : r.jobs()) {
          csv.add(
              String.join(
                  ",",
                  s,
                  Integer.toString(r.round()),
                  Integer.toString(j.app()),
                  j.id(),
                  Long.toString(j.bytes()),
                  Boolean.toString(small.contains(j.id())),
                  String.format(Locale.ROOT, "%.3f", j.seconds()),
                  String.format(Locale.ROOT, "%.3f", j.fetchWaitSeconds()),
                  String.format(Locale.ROOT, "%.3f", j.gcSeconds()),
                  String.format(Locale.ROOT, "%.3f", j.deserializeSeconds()),
                  j.digest() == null ? "" : j.digest(),
                  Boolean.toString(j.digest() != null && j.digest().equals(reference.get(j.id()))),
                  j.failure() == null ? "" : '"' + j.failure().replace('"', '\'') + '"'));
          if (j.failure() == null) {
            all.add(j.seconds());
          }
        }
      }
      cdf.add(new CdfPlot.Series(s, all.stream().mapToDouble(Double::doubleValue).toArray()));
    }
    Files.write(dir.resolve("jobs.csv"), csv);
    Files.writeString(dir.resolve("summary.json"), json() + "\n");
    CdfPlot.writeSeries(
        dir.resolve("job-cdf.png"),
        cdf,
        String.format(
            Locale.ROOT,
            "Spark %s job time (s), %d hosts, %s",
            plan.spark(),
            plan.hosts(),
            Units.formatBitRate(plan.link().bitsPerSecond() / 8)));
  }
}
