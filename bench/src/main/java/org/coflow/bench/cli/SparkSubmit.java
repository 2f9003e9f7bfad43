package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code spark-submit} for the commands that run Spark ({@code demo}, {@code bench tpcds}):
 * pyspark's, set up and cached by {@code bin/lib/pyspark-env.sh}, with our shaded jar added the way
 * the README tells users to (the Courier shuffle manager and both {@code extraClassPath}s).
 */
final class SparkSubmit {
  static final String MANAGER = "org.apache.spark.shuffle.courier.CourierShuffleManager";

  private final Path venv;
  private final Path jar;

  private SparkSubmit(Path venv, Path jar) {
    this.venv = venv;
    this.jar = jar;
  }

  /**
   * Sets pyspark up (first use installs it) and finds the shaded jar; null (and a message) if
   * absent.
   */
  static SparkSubmit prepare(Path home, String command, PrintStream err) throws IOException {
    Path jar = distJar(home);
    if (jar == null) {
      err.println(
          command
              + ": no courier-shuffle/dist/target/courier-dist-*.jar; build it with: mvn -DskipTests package");
      return null;
    }
    return new SparkSubmit(pysparkEnv(home), jar);
  }

  Path python() {
    return venv.resolve("bin/python");
  }

  /** The command line up to the application: spark-submit, the cluster, our jar and manager. */
  List<String> command(String master) {
    List<String> cmd = stockShuffleCommand(master);
    cmd.addAll(3, List.of("--conf", "spark.shuffle.manager=" + MANAGER));
    return cmd;
  }

  /**
   * The command line with Spark's own shuffle: our jar only on the class paths (for listeners such
   * as {@code ShuffleTimes}), as in {@code demo --dark}, where the coda-agent watches Spark's own
   * shuffle.
   */
  List<String> stockShuffleCommand(String master) {
    return new ArrayList<>(
        List.of(
            venv.resolve("bin/spark-submit").toString(),
            "--master",
            master,
            "--conf",
            "spark.driver.extraClassPath=" + jar,
            "--conf",
            "spark.executor.extraClassPath=" + jar,
            "--conf",
            "spark.ui.enabled=false"));
  }

  /**
   * Runs {@code cmd} with its output in {@code log}; true if it exited 0 within {@code minutes},
   * else false after saying so on {@code err}.
   */
  boolean run(List<String> cmd, Path log, int minutes, String what, PrintStream err)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().put("PYSPARK_PYTHON", python().toString());
    pb.environment().remove("SPARK_HOME");
    Process p = pb.start();
    try {
      if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
        err.println(what + " did not finish in " + minutes + " minutes; see " + log);
        return false;
      }
    } finally {
      if (p.isAlive()) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    }
    if (p.exitValue() != 0) {
      err.println(what + ": spark-submit failed (exit " + p.exitValue() + "); see " + log);
      return false;
    }
    return true;
  }

  private static Path distJar(Path home) throws IOException {
    Path dir = home.resolve("courier-shuffle/dist/target");
    if (!Files.isDirectory(dir)) {
      return null;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().matches("courier-dist-.*\\.jar"))
          .findFirst()
          .orElse(null);
    }
  }

  private static Path pysparkEnv(Path home) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder("bash", home.resolve("bin/lib/pyspark-env.sh").toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    String outText = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    try {
      if (p.waitFor() != 0 || outText.isEmpty()) {
        throw new IOException(
            "setting up pyspark failed (bin/lib/pyspark-env.sh exit " + p.exitValue() + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while setting up pyspark");
    }
    String[] lines = outText.split("\n");
    return Path.of(lines[lines.length - 1].trim());
  }
}
