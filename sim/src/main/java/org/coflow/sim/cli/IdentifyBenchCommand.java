package org.coflow.sim.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.coflow.core.config.Args;
import org.coflow.core.config.UsageException;
import org.coflow.core.identify.CodaMetric;
import org.coflow.sim.identify.IdentifyBench;
import org.coflow.sim.identify.IdentifyWorkload;
import org.coflow.sim.report.Json;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceFormatException;
import org.coflow.sim.trace.TraceParser;

/**
 * {@code bin/coflow bench identify}: CODA's identification (incremental Rough-DBSCAN over the
 * learned metric) against Rough-DBSCAN rebuilt each round and plain DBSCAN, on labelled flows made
 * from the Facebook trace: precision, recall and time per round.
 */
public final class IdentifyBenchCommand {
  static final String HELP =
      """
      Usage: coflow bench identify [--flows LIST] [--framework spark|hadoop|mixed]
                                   [--workload normal|batch|stretched] [--batch-interval S]
                                   [--eps E] [--tau T] [--delta S] [--dbscan-rounds N] [--depart]
                                   [--learn FILE | --metric FILE] [--trace FILE] [--json]

      Flows without coflow ids, made from the Facebook trace with CODA's start-time models
      (Spark: within 100 ms; Hadoop: within 1 s plus an exponential 100 ms; batch: coflows of a
      --batch-interval window arrive within 300 ms; stretched: within 5 s, Hadoop plus an
      exponential 1 s), are identified round by round (every --delta of trace time flows join and
      leave). For each --flows count, prints per algorithm (coda = incremental Rough-DBSCAN, every
      round with arrivals; r-dbscan = Rough-DBSCAN rebuilt from scratch and dbscan = plain DBSCAN,
      each on --dbscan-rounds rounds spread over the replay, with coda's figures on exactly those
      rounds next to them) the flow-weighted precision and recall and the mean time per round.

        --flows LIST        first N flows of the workload (default 10000,100000)
        --framework F       spark, hadoop or mixed (default spark)
        --workload W        normal, batch or stretched (default normal)
        --batch-interval S  batch workload's interval in seconds (default 10)
        --eps E, --tau T    DBSCAN radius and leader range (default 1.0 and 0.5)
        --delta S           round length in seconds of trace time (default 0.1)
        --dbscan-rounds N   rounds each baseline runs (default 3; 0 skips them)
        --depart            flows leave when their coflow ends (its largest flow at 100 Mbit/s after
                            its last start); by default every flow stays, so the identifier holds
                            up to all N flows (the heaviest case)
        --learn FILE        learn the metric's weights (CODA's diagonal metric learning) from the
                            workload's labelled flows (the first --flows count), write them to
                            FILE and use them; default: the paper's learned weights
        --metric FILE       use the weights in FILE (as --learn writes them)
        --trace FILE        coflow-benchmark trace (default the shipped FB2010-1Hr-150-0)
        --json              one JSON object per algorithm and flow count
      """;

  private IdentifyBenchCommand() {}

  /** The weights in {@code --metric FILE}, else the paper's; a bad file is a usage error. */
  static CodaMetric metric(Args a, String command) throws UsageException {
    if (!a.has("metric")) {
      return CodaMetric.PAPER_SPARK_HADOOP;
    }
    try {
      return CodaMetric.load(Path.of(a.get("metric", "")));
    } catch (IllegalArgumentException | IOException e) {
      throw new UsageException(command + ": --metric: " + e.getMessage());
    }
  }

  public static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench identify",
            argv,
            Set.of(
                "flows",
                "framework",
                "workload",
                "batch-interval",
                "eps",
                "tau",
                "delta",
                "dbscan-rounds",
                "trace",
                "learn",
                "metric"),
            Set.of("json", "help", "depart"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    IdentifyWorkload.Framework framework;
    IdentifyWorkload.Arrivals arrivals;
    try {
      framework =
          IdentifyWorkload.Framework.valueOf(a.get("framework", "spark").toUpperCase(Locale.ROOT));
      arrivals =
          IdentifyWorkload.Arrivals.valueOf(a.get("workload", "normal").toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "coflow bench identify: --framework is spark, hadoop or mixed and --workload is "
              + "normal, batch or stretched (got '"
              + a.get("framework", "spark")
              + "', '"
              + a.get("workload", "normal")
              + "')");
    }
    List<Integer> counts = new ArrayList<>();
    double eps;
    double tau;
    double delta;
    double batch;
    int dbscanRounds;
    try {
      for (String s : a.get("flows", "10000,100000").split(",")) {
        counts.add(Integer.parseInt(s.trim()));
      }
      eps = Double.parseDouble(a.get("eps", "1.0"));
      tau = Double.parseDouble(a.get("tau", "0.5"));
      delta = Double.parseDouble(a.get("delta", "0.1"));
      batch = Double.parseDouble(a.get("batch-interval", "10"));
      dbscanRounds = Integer.parseInt(a.get("dbscan-rounds", "3"));
    } catch (NumberFormatException e) {
      throw new UsageException(
          "coflow bench identify: a numeric option is not a number (" + e.getMessage() + ")");
    }
    for (int n : counts) {
      if (n < 1 || n > 5_000_000) {
        throw new UsageException(
            "coflow bench identify: --flows " + n + " is out of range; use 1 to 5000000");
      }
    }
    if (!(eps > 0)
        || !(tau >= 0)
        || tau > eps
        || !(delta >= 0.001)
        || !(batch > 0)
        || dbscanRounds < 0) {
      throw new UsageException(
          "coflow bench identify: need --eps > 0, 0 <= --tau <= --eps, --delta >= 0.001, "
              + "--batch-interval > 0, --dbscan-rounds >= 0");
    }
    Path tracePath =
        a.has("trace") ? Path.of(a.get("trace", "")) : home.resolve(SimCommand.DEFAULT_TRACE);
    if (!java.nio.file.Files.isRegularFile(tracePath)) {
      throw new UsageException("coflow bench identify: --trace " + tracePath + " is not a file");
    }
    Trace trace;
    try {
      trace = TraceParser.parse(tracePath);
    } catch (TraceFormatException e) {
      throw new UsageException("coflow bench identify: " + e.getMessage());
    }
    if (a.has("learn") && a.has("metric")) {
      throw new UsageException("coflow bench identify: --learn and --metric exclude each other");
    }
    CodaMetric metric = metric(a, "coflow bench identify");
    if (!a.has("metric") && a.has("learn")) {
      List<IdentifyWorkload.Flow> training =
          IdentifyWorkload.generate(trace, framework, arrivals, batch, counts.get(0), 99);
      org.coflow.core.identify.Communities com = new org.coflow.core.identify.Communities();
      training.forEach(f -> com.observe(f.src(), f.dst()));
      List<org.coflow.core.identify.MetricLearner.Labelled> labelled = new ArrayList<>();
      for (IdentifyWorkload.Flow f : training) {
        labelled.add(
            new org.coflow.core.identify.MetricLearner.Labelled(
                new org.coflow.core.identify.FlowPoint(
                    f.id(),
                    f.startSec(),
                    f.src(),
                    f.dst(),
                    f.dstPort(),
                    f.hadoop(),
                    com.of(f.src())),
                f.coflow()));
      }
      metric = org.coflow.core.identify.MetricLearner.learn(labelled, 20_000, 5.0, 7);
      metric.store(
          Path.of(a.get("learn", "")),
          "learned by bin/coflow bench identify from "
              + counts.get(0)
              + " "
              + framework.name().toLowerCase(Locale.ROOT)
              + " flows ("
              + arrivals.name().toLowerCase(Locale.ROOT)
              + ")");
      err.println(
          "coflow bench identify: learned weights "
              + java.util.Arrays.toString(metric.weights())
              + " (spark time/community/port, hadoop time/community/port) written to "
              + a.get("learn", ""));
    }
    boolean json = a.has("json");
    if (!json) {
      out.printf(
          Locale.ROOT,
          "%s flows, %s arrivals, eps %.2f, tau %.2f, rounds of %.0f ms%n",
          framework.name().toLowerCase(Locale.ROOT),
          arrivals.name().toLowerCase(Locale.ROOT),
          eps,
          tau,
          delta * 1000);
      out.printf(
          Locale.ROOT,
          "  %-9s %8s %10s %8s %10s %10s %7s %9s%n",
          "algorithm",
          "flows",
          "precision",
          "recall",
          "round_ms",
          "max_ms",
          "rounds",
          "present");
    }
    for (int n : counts) {
      List<IdentifyWorkload.Flow> flows =
          IdentifyWorkload.generate(trace, framework, arrivals, batch, n, 1);
      for (IdentifyBench.Result r :
          IdentifyBench.run(
              flows, metric, eps, tau, delta, dbscanRounds, dbscanRounds, a.has("depart"))) {
        if (json) {
          out.println(
              new Json()
                  .put("algorithm", r.algorithm())
                  .put("flows", r.flows())
                  .put("framework", framework.name().toLowerCase(Locale.ROOT))
                  .put("workload", arrivals.name().toLowerCase(Locale.ROOT))
                  .put("precision", r.precision())
                  .put("recall", r.recall())
                  .put("round_ms", r.roundMs())
                  .put("max_round_ms", r.maxRoundMs())
                  .put("rounds", r.rounds())
                  .put("mean_present_flows", r.meanPresent()));
        } else {
          out.printf(
              Locale.ROOT,
              "  %-9s %8d %10.4f %8.4f %10.3f %10.3f %7d %9d%n",
              r.algorithm(),
              r.flows(),
              r.precision(),
              r.recall(),
              r.roundMs(),
              r.maxRoundMs(),
              r.rounds(),
              r.meanPresent());
        }
        out.flush();
      }
    }
    return 0;
  }
}
