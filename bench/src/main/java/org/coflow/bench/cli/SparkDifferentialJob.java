package org.coflow.bench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One run of the Spark version check: pyspark {@code version}'s real {@code spark-submit} runs a
 * PySpark job (RDD reduceByKey, groupByKey, sortByKey; SQL group-by, repartition) on {@code
 * local-cluster[2,1,1024]} with the drop-in jar of its line added as the README says, each shuffle
 * once through the Courier agents and once with Spark's own fetch. The result says whether both
 * gave the same rows (digests), whether the known values came out, and what each executor's {@code
 * CourierShuffle} metrics (Spark's own CSV sink, whose last report follows the application's end)
 * say: reads through agents, bytes received from the other executor's agent, fallbacks. Used by
 * {@code bin/coflow bench spark-versions} and by the spark-submit tests in {@code mvn verify}.
 */
public final class SparkDifferentialJob {
  private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":\\s*(\"[^\"]*\"|-?\\d+)");

  private SparkDifferentialJob() {}

  /** What one version's run showed. */
  public record Outcome(
      String version,
      String jarMode,
      double seconds,
      String problem,
      Map<String, String> result,
      Map<String, Map<String, Long>> metrics) {

    /** A metric summed over the executors. */
    public long total(String metric) {
      return metrics.values().stream().mapToLong(m -> m.getOrDefault(metric, 0L)).sum();
    }

    /** Why the run does not pass, or null if it does. */
    public String failure() {
      if (problem != null) {
        return problem;
      }
      if (!version.equals(result.get("spark"))) {
        return "the job ran on Spark " + result.get("spark") + ", not " + version;
      }
      String digest = result.get("courier_digest");
      if (digest == null || !digest.equals(result.get("stock_digest"))) {
        return "results differ: courier "
            + result.get("courier_digest")
            + ", stock "
            + result.get("stock_digest");
      }
      Map<String, String> expected =
          Map.of(
              "w0", "220", "w910", "219", "rows", "100000", "bytes", "6400000", "sql_groups", "97");
      for (Map.Entry<String, String> e : expected.entrySet()) {
        if (!e.getValue().equals(result.get(e.getKey()))) {
          return e.getKey() + " = " + result.get(e.getKey()) + ", expected " + e.getValue();
        }
      }
      if (!metrics.keySet().equals(java.util.Set.of("0", "1"))) {
        return "metrics came from executors "
            + metrics.keySet()
            + " (expected 0 and 1 only:"
            + " an executor was lost)";
      }
      for (Map.Entry<String, Map<String, Long>> e : metrics.entrySet()) {
        Map<String, Long> m = e.getValue();
        if (!m.keySet().containsAll(METRICS)) {
          return "executor " + e.getKey() + " reported only " + m.keySet() + " of " + METRICS;
        }
        if (m.get("fallbacks") != 0) {
          return "executor "
              + e.getKey()
              + " fell back to Spark's fetch "
              + m.get("fallbacks")
              + " times";
        }
        if (m.get("readsThroughAgents") <= 0) {
          return "executor " + e.getKey() + " read nothing through its agent";
        }
        if (m.get("bytesFetchedFromPeers") <= 0) {
          return "executor " + e.getKey() + " received no bytes from the other executor's agent";
        }
      }
      return null;
    }
  }

  static final List<String> METRICS =
      List.of("readsThroughAgents", "bytesFetchedFromPeers", "fallbacks");

  /**
   * Runs the job on pyspark {@code version} (installed into the cache on first use) with the
   * project's jar for its line; logs and results go under {@code work}.
   */
  public static Outcome run(Path home, String version, Path work, PrintStream err)
      throws IOException, InterruptedException {
    return run(home, version, work, err, Cluster.LOCAL);
  }

  /**
   * Where the job runs: Spark's {@code --master}, the address its driver listens on, and more
   * {@code --conf} settings (key=value).
   */
  public record Cluster(String master, String driverAddress, List<String> conf) {
    /** Two executors of one core on this machine, each with its embedded agent. */
    public static final Cluster LOCAL =
        new Cluster("local-cluster[2,1,1024]", "127.0.0.1", List.of());
  }

  /**
   * pyspark {@code version}'s Spark home (installed into the cache on first use), for starting a
   * standalone cluster of that version.
   */
  public static Path sparkHome(Path home, String version, PrintStream err) throws IOException {
    SparkSubmit submit =
        SparkSubmit.prepare(home, "spark cluster", SparkSubmit.pysparkVersion(version), err);
    if (submit == null) {
      throw new IOException("no drop-in jar for Spark " + version + " in " + home);
    }
    return submit.sparkHome();
  }

  /** The same on {@code cluster}. */
  public static Outcome run(Path home, String version, Path work, PrintStream err, Cluster cluster)
      throws IOException, InterruptedException {
    String v = SparkSubmit.pysparkVersion(version);
    SparkSubmit submit = SparkSubmit.prepare(home, "spark version check", v, err);
    String jarMode = SparkSubmit.isSpark4(v) ? "--jars" : "extraClassPath";
    if (submit == null) {
      return new Outcome(v, jarMode, 0, "no drop-in jar for Spark " + v, Map.of(), Map.of());
    }
    Path dir = Files.createDirectories(work.resolve("spark-" + v));
    Path app = dir.resolve("spark_differential.py");
    try (InputStream in =
        SparkDifferentialJob.class.getResourceAsStream(
            "/org/coflow/bench/demo/spark_differential.py")) {
      Files.copy(in, app, StandardCopyOption.REPLACE_EXISTING);
    }
    Path out = dir.resolve("result.json");
    Files.deleteIfExists(out);
    Path metrics = dir.resolve("metrics");
    deleteTree(metrics);
    Files.createDirectories(metrics);
    Path sparkWork = submit.sparkHome().resolve("work");
    List<Path> before = list(sparkWork);
    List<String> cmd = submit.command(cluster.master());
    for (String kv : cluster.conf()) {
      cmd.addAll(List.of("--conf", kv));
    }
    String sink = "spark.metrics.conf.executor.sink.csv.";
    cmd.addAll(
        List.of(
            "--conf",
            sink + "class=org.apache.spark.metrics.sink.CsvSink",
            "--conf",
            sink + "period=1",
            "--conf",
            sink + "unit=seconds",
            "--conf",
            sink + "directory=" + metrics,
            app.toString(),
            out.toString()));
    long t0 = System.nanoTime();
    boolean ok =
        submit.run(
            cmd, dir.resolve("spark-submit.log"), 10, "Spark " + v, err, cluster.driverAddress());
    double seconds = (System.nanoTime() - t0) / 1e9;
    String problem = null;
    Map<String, String> result = new TreeMap<>();
    if (!ok || !Files.exists(out)) {
      problem = "spark-submit failed; see " + dir.resolve("spark-submit.log");
    } else {
      Matcher m = FIELD.matcher(Files.readString(out));
      while (m.find()) {
        result.put(m.group(1), m.group(2).replace("\"", ""));
      }
    }
    Outcome outcome = new Outcome(v, jarMode, seconds, problem, result, readMetrics(metrics));
    // The application's executor logs: kept if the version failed, else removed (they pile up).
    if (outcome.failure() == null) {
      List<Path> mine = list(sparkWork);
      mine.removeAll(before);
      for (Path p : mine) {
        deleteTree(p);
      }
    }
    return outcome;
  }

  /**
   * Per executor, the last value Spark's CSV sink wrote for each of {@link #METRICS} (files {@code
   * <app>.<executor>.CourierShuffle.<metric>.csv}).
   */
  public static Map<String, Map<String, Long>> readMetrics(Path dir) throws IOException {
    Map<String, Map<String, Long>> out = new TreeMap<>();
    Pattern name = Pattern.compile(".*\\.(\\w+)\\.CourierShuffle\\.(\\w+)\\.csv");
    for (Path f : list(dir)) {
      Matcher m = name.matcher(f.getFileName().toString());
      if (!m.matches() || !METRICS.contains(m.group(2))) {
        continue;
      }
      List<String> lines = Files.readAllLines(f);
      if (lines.size() < 2) {
        continue;
      }
      String last = lines.get(lines.size() - 1);
      out.computeIfAbsent(m.group(1), k -> new TreeMap<>())
          .put(m.group(2), Long.parseLong(last.substring(last.lastIndexOf(',') + 1).trim()));
    }
    return out;
  }

  private static List<Path> list(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return new ArrayList<>();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return new ArrayList<>(s.toList());
    }
  }

  /** Removes {@code root} and everything under it, if it exists. */
  public static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
