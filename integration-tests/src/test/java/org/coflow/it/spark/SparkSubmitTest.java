package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code spark-submit} of the pyspark distribution (set up by {@code
 * bin/lib/pyspark-env.sh}, cached after the first run) runs a job on {@code
 * local-cluster[2,1,1024]} with our jar added exactly as the README says: results are right, and
 * each executor's {@code CourierShuffle} metrics (written by Spark's own CSV metrics sink, whose
 * last report comes after the application stopped) show that it read shuffle blocks through the
 * agents, received bytes from the other executor's agent, and never fell back to Spark's fetch.
 */
class SparkSubmitTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void theReadmeLineRunsAJobThroughCourier(@TempDir Path dir) throws Exception {
    Path venv =
        Path.of(
            run(List.of("bash", ROOT.resolve("bin/lib/pyspark-env.sh").toString()), null, 1800)
                .trim()
                .lines()
                .reduce((a, b) -> b)
                .orElseThrow());
    Path jar =
        Files.list(ROOT.resolve("courier-shuffle/dist/target"))
            .filter(p -> p.getFileName().toString().matches("courier-dist-.*\\.jar"))
            .filter(p -> !p.getFileName().toString().startsWith("original"))
            .findFirst()
            .orElseThrow();
    Path job = dir.resolve("wordcount.py");
    try (var in = getClass().getResourceAsStream("/pyspark/wordcount.py")) {
      Files.copy(in, job);
    }
    Path out = dir.resolve("out.json");
    Path metrics = Files.createDirectories(dir.resolve("metrics"));
    Path sparkHome = venv.resolve("lib").resolve(pythonDir(venv)).resolve("site-packages/pyspark");
    Path work = sparkHome.resolve("work");
    List<Path> before = apps(work);
    List<String> cmd =
        List.of(
            venv.resolve("bin/spark-submit").toString(),
            "--master",
            "local-cluster[2,1,1024]",
            "--conf",
            "spark.shuffle.manager=org.apache.spark.shuffle.courier.CourierShuffleManager",
            "--conf",
            "spark.driver.extraClassPath=" + jar,
            "--conf",
            "spark.executor.extraClassPath=" + jar,
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.metrics.conf.executor.sink.csv.class=org.apache.spark.metrics.sink.CsvSink",
            "--conf",
            "spark.metrics.conf.executor.sink.csv.period=1",
            "--conf",
            "spark.metrics.conf.executor.sink.csv.unit=seconds",
            "--conf",
            "spark.metrics.conf.executor.sink.csv.directory=" + metrics,
            job.toString(),
            out.toString());
    run(cmd, venv, 600);
    String json = Files.readString(out);
    assertTrue(json.contains("\"w0\": 220") && json.contains("\"w910\": 219"), json);
    assertTrue(json.contains("\"rows\": 100000") && json.contains("\"bytes\": 6400000"), json);
    List<Path> mine = apps(work);
    mine.removeAll(before);
    assertEquals(1, mine.size(), "one new application under " + work);
    for (String exec : List.of("0", "1")) {
      assertEquals(
          0,
          lastValue(metrics, exec, "fallbacks"),
          "executor " + exec + " fell back to Spark's fetch");
      assertTrue(
          lastValue(metrics, exec, "readsThroughAgents") > 0,
          "executor " + exec + " read through its agent");
      assertTrue(
          lastValue(metrics, exec, "bytesFetchedFromPeers") > 0,
          "executor " + exec + " received bytes from the other executor's agent");
    }
    deleteTree(mine.get(0)); // the work dir grows with every run
  }

  /**
   * The last value Spark's CSV sink wrote for executor {@code exec}'s gauge {@code
   * CourierShuffle.<metric>} (files {@code <app>.<exec>.CourierShuffle.<metric>.csv}).
   */
  private static long lastValue(Path dir, String exec, String metric) throws IOException {
    String suffix = "." + exec + ".CourierShuffle." + metric + ".csv";
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
    }
    assertEquals(1, files.size(), "one CSV of " + suffix + " in " + dir + ": " + files);
    List<String> lines = Files.readAllLines(files.get(0));
    assertTrue(lines.size() >= 2, files.get(0) + " has no value: " + lines);
    String last = lines.get(lines.size() - 1);
    return Long.parseLong(last.substring(last.lastIndexOf(',') + 1).trim());
  }

  private static String pythonDir(Path venv) throws IOException {
    try (Stream<Path> s = Files.list(venv.resolve("lib"))) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("python"))
          .findFirst()
          .orElseThrow();
    }
  }

  private static List<Path> apps(Path work) throws IOException {
    if (!Files.isDirectory(work)) {
      return new ArrayList<>();
    }
    try (Stream<Path> s = Files.list(work)) {
      return new ArrayList<>(s.toList());
    }
  }

  private static String run(List<String> cmd, Path venv, long seconds) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    if (venv != null) {
      pb.environment().put("PYSPARK_PYTHON", venv.resolve("bin/python").toString());
      pb.environment().put("PATH", venv.resolve("bin") + ":" + System.getenv("PATH"));
      pb.environment().remove("SPARK_HOME");
      pb.environment().remove("SPARK_SCALA_VERSION");
    }
    Process p = pb.start();
    byte[] output = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
    String text = new String(output, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + text);
    return text;
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
