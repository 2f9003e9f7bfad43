package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.coflow.core.config.Args;
import org.coflow.core.config.UsageException;
import org.coflow.sim.report.Json;

/**
 * {@code bin/coflow bench spark-versions}: the same small differential job ({@link
 * SparkDifferentialJob}) through the real {@code spark-submit} of one pyspark release of every
 * Spark line the jars are built for, one table.
 */
final class SparkVersionsBenchCommand {
  static final String DEFAULT_VERSIONS = "3.5.9,4.0.5,4.1.4,4.2.1,4.3.0";
  static final String HELP =
      """
      Usage: coflow bench spark-versions [--versions LIST] [--json]

      Runs one small PySpark job (RDD reduceByKey/groupByKey/sortByKey, SQL group-by, a
      repartition of whole rows) on each pyspark release in LIST, through that release's own
      spark-submit on local-cluster[2,1,1024] with our jar for its line added as the README says
      (3.5: courier-spark-3.5_2.12 on both extraClassPaths; 4.x: courier-spark-4_2.13 with --jars
      only). Each shuffle runs once through the Courier agents and once with Spark's own fetch
      in the same application. A version passes if both gave the same rows (digests), the known
      values came out, and each executor's CourierShuffle metrics show reads through the agents,
      bytes received from the other executor's agent and no fallback. Prints one row per
      version; exits 1 if any fails.

      The first run of each version installs its pyspark from PyPI into ~/.cache/coflow
      (320-460 MB each; COFLOW_CACHE moves it). Logs go to target/bench-spark-versions/.

        --versions LIST  comma-separated pyspark versions or lines (default %s)
        --json           print one JSON object instead of the table
      """;

  private SparkVersionsBenchCommand() {}

  static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse("coflow bench spark-versions", argv, Set.of("versions"), Set.of("json", "help"));
    if (a.has("help")) {
      out.print(String.format(Locale.ROOT, HELP, DEFAULT_VERSIONS));
      return 0;
    }
    Set<String> versions = new LinkedHashSet<>();
    for (String v : a.get("versions", DEFAULT_VERSIONS).split(",")) {
      try {
        versions.add(SparkSubmit.pysparkVersion(v.trim()));
      } catch (IllegalArgumentException e) {
        throw new UsageException(
            "coflow bench spark-versions: --versions '"
                + v.trim()
                + "': not a Spark this project builds for; use "
                + SparkSubmit.SPARK_OPTION_HELP);
      }
    }
    Path work = Files.createDirectories(home.resolve("target/bench-spark-versions"));
    List<SparkDifferentialJob.Outcome> outcomes = new ArrayList<>();
    try {
      for (String v : versions) {
        err.println("coflow bench spark-versions: Spark " + v + "...");
        err.flush();
        try {
          outcomes.add(SparkDifferentialJob.run(home, v, work, err));
        } catch (IOException e) {
          // This version could not be set up (pip, say): its row says why, the others still run.
          outcomes.add(
              new SparkDifferentialJob.Outcome(
                  v,
                  SparkSubmit.isSpark4(v) ? "--jars" : "extraClassPath",
                  0,
                  e.getMessage(),
                  java.util.Map.of(),
                  java.util.Map.of()));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    out.print(a.has("json") ? json(outcomes) + "\n" : table(outcomes));
    return outcomes.stream().allMatch(o -> o.failure() == null) ? 0 : 1;
  }

  static String table(List<SparkDifferentialJob.Outcome> outcomes) {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%-8s %-15s %-9s %-14s %-12s %-10s %-9s %s%n",
                "pyspark",
                "jar loaded by",
                "seconds",
                "rows = stock",
                "agent reads",
                "peer KB",
                "fallbacks",
                "verdict"));
    for (SparkDifferentialJob.Outcome o : outcomes) {
      String failure = o.failure();
      boolean ran = o.problem() == null;
      sb.append(
          String.format(
              Locale.ROOT,
              "%-8s %-15s %-9.1f %-14s %-12s %-10s %-9s %s%n",
              o.version(),
              o.jarMode(),
              o.seconds(),
              ran ? Boolean.toString(equalRows(o)) : "-",
              ran ? Long.toString(o.total("readsThroughAgents")) : "-",
              ran ? Long.toString(o.total("bytesFetchedFromPeers") / 1024) : "-",
              ran ? Long.toString(o.total("fallbacks")) : "-",
              failure == null ? "PASS" : "FAIL: " + failure));
    }
    long passed = outcomes.stream().filter(o -> o.failure() == null).count();
    sb.append(String.format(Locale.ROOT, "%d of %d versions pass%n", passed, outcomes.size()));
    return sb.toString();
  }

  private static boolean equalRows(SparkDifferentialJob.Outcome o) {
    String c = o.result().get("courier_digest");
    return c != null && c.equals(o.result().get("stock_digest"));
  }

  static String json(List<SparkDifferentialJob.Outcome> outcomes) {
    Json j = new Json();
    Json per = new Json();
    for (SparkDifferentialJob.Outcome o : outcomes) {
      String failure = o.failure();
      per.put(
          o.version(),
          new Json()
              .put("jar_loaded_by", o.jarMode())
              .put("seconds", o.seconds())
              .put("rows_equal", equalRows(o))
              .put("reads_through_agents", o.total("readsThroughAgents"))
              .put("bytes_from_peers", o.total("bytesFetchedFromPeers"))
              .put("fallbacks", o.total("fallbacks"))
              .put("pass", failure == null)
              .put("failure", failure == null ? "" : failure));
    }
    j.put("versions", per).put("all_pass", outcomes.stream().allMatch(o -> o.failure() == null));
    return j.toString();
  }
}
