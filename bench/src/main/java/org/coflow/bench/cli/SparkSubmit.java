package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.coflow.bench.sparktestbed.Submitter;

/**
 * A real {@code spark-submit} for the commands that run Spark ({@code demo}, {@code bench tpcds},
 * {@code bench spark-versions}): pyspark's, set up and cached by {@code bin/lib/pyspark-env.sh},
 * with the drop-in jar of its Spark line added the way the README tells users to (Spark 3.5: both
 * {@code extraClassPath}s; Spark 4: {@code --jars}).
 */
public final class SparkSubmit {
  static final String MANAGER = "org.apache.spark.shuffle.courier.CourierShuffleManager";

  /** What {@code --spark} takes, for help texts. */
  static final String SPARK_OPTION_HELP =
      "3.5 (pyspark 3.5.9, the default), 4 (4.3.0), a line 4.0-4.3 (its newest pyspark:"
          + " 4.0.5, 4.1.4, 4.2.1, 4.3.0) or an exact pyspark version of those lines";

  private static final Map<String, String> NEWEST =
      Map.of(
          "3.5", "3.5.9", "4", "4.3.0", "4.0", "4.0.5", "4.1", "4.1.4", "4.2", "4.2.1", "4.3",
          "4.3.0");

  private final Path venv;
  private final Path jar;
  private final String version;

  private SparkSubmit(Path venv, Path jar, String version) {
    this.venv = venv;
    this.jar = jar;
    this.version = version;
  }

  /**
   * The pyspark version {@code --spark SPEC} names: a line ({@code 3.5}, {@code 4}, {@code 4.0} to
   * {@code 4.3}) is its newest release, an exact version of those lines is itself.
   *
   * @throws IllegalArgumentException naming the value and what is accepted
   */
  public static String pysparkVersion(String spec) {
    String v = NEWEST.getOrDefault(spec, spec);
    if (!v.matches("(3\\.5|4\\.[0-3])\\.\\d+")) {
      throw new IllegalArgumentException(
          "--spark " + spec + ": not a Spark this project builds for; use " + SPARK_OPTION_HELP);
    }
    return v;
  }

  /** Whether pyspark {@code version} is of the Spark 4 line (Scala 2.13, its own jar). */
  public static boolean isSpark4(String version) {
    return version.startsWith("4.");
  }

  /**
   * Sets pyspark {@code version} up (first use installs it) and finds the drop-in jar of its line;
   * null (and a message) if the jar is absent.
   */
  public static SparkSubmit prepare(Path home, String command, String version, PrintStream err)
      throws IOException {
    Path jar = distJar(home, isSpark4(version));
    if (jar == null) {
      err.println(
          command
              + ": no "
              + (isSpark4(version)
                  ? "courier-shuffle/dist-spark4/target/courier-spark-4_2.13-*.jar"
                  : "courier-shuffle/dist/target/courier-spark-3.5_2.12-*.jar")
              + "; build it with: mvn -DskipTests package");
      return null;
    }
    return new SparkSubmit(pysparkEnv(home, version), jar, version);
  }

  /** pyspark's Spark home (its jars, and {@code work/} where local-cluster executors log). */
  public Path sparkHome() throws IOException {
    try (Stream<Path> s = Files.list(venv.resolve("lib"))) {
      Path python =
          s.filter(p -> p.getFileName().toString().startsWith("python"))
              .findFirst()
              .orElseThrow(() -> new IOException("no lib/python* in " + venv));
      return python.resolve("site-packages/pyspark");
    }
  }

  /** The pyspark version this runs. */
  public String version() {
    return version;
  }

  Path python() {
    return venv.resolve("bin/python");
  }

  /** The command line up to the application: spark-submit, the cluster, our jar and manager. */
  public List<String> command(String master) {
    List<String> cmd = stockShuffleCommand(master);
    cmd.addAll(List.of("--conf", "spark.shuffle.manager=" + MANAGER));
    return cmd;
  }

  /** The command line of a Spark without this project: spark-submit and the cluster alone. */
  public List<String> bareCommand(String master) {
    return new ArrayList<>(
        List.of(
            venv.resolve("bin/spark-submit").toString(),
            "--master",
            master,
            "--conf",
            "spark.ui.enabled=false"));
  }

  /**
   * The command line with Spark's own shuffle: our jar only on the class paths (for listeners such
   * as {@code ShuffleTimes}), as in {@code demo --dark}, where the coda-agent watches Spark's own
   * shuffle. Spark 3.5 loads a shuffle manager only from the JVMs' own class paths; Spark 4 builds
   * it after {@code --jars} reached the executors (SPARK-45762), so there {@code --jars} is all.
   */
  public List<String> stockShuffleCommand(String master) {
    List<String> cmd =
        new ArrayList<>(List.of(venv.resolve("bin/spark-submit").toString(), "--master", master));
    if (isSpark4(version)) {
      cmd.addAll(List.of("--jars", jar.toString()));
    } else {
      cmd.addAll(
          List.of(
              "--conf",
              "spark.driver.extraClassPath=" + jar,
              "--conf",
              "spark.executor.extraClassPath=" + jar));
    }
    cmd.addAll(List.of("--conf", "spark.ui.enabled=false"));
    if (master.startsWith("local-cluster")) {
      // Its executors stand for hosts: each reader fetches the other's blocks over the network
      // (ours through the agents), not from the other's files as on one host. A later --conf
      // spark.shuffle.readHostLocalDisk=true puts that back for both readers.
      cmd.addAll(List.of("--conf", HOST_DISK_OFF));
    }
    return cmd;
  }

  /** What a local cluster's executors get: no reading of each other's files. */
  static final String HOST_DISK_OFF = "spark.shuffle.readHostLocalDisk=false";

  /**
   * Runs {@code cmd} with its output in {@code log}; true if it exited 0 within {@code minutes},
   * else false after saying so on {@code err}.
   */
  public boolean run(List<String> cmd, Path log, int minutes, String what, PrintStream err)
      throws IOException, InterruptedException {
    return run(cmd, log, minutes, what, err, "127.0.0.1");
  }

  /** The same, with the driver on {@code localIp} (where a cluster's executors reach it). */
  public boolean run(
      List<String> cmd, Path log, int minutes, String what, PrintStream err, String localIp)
      throws IOException, InterruptedException {
    Process p = start(cmd, log, localIp);
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

  /**
   * Starts {@code cmd} with its output in {@code log} and the driver on {@code localIp}, for a
   * caller that runs several applications at once.
   */
  public Process start(List<String> cmd, Path log, String localIp) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("SPARK_LOCAL_IP", localIp);
    pb.environment().put("PYSPARK_PYTHON", python().toString());
    pb.environment().remove("SPARK_HOME");
    return pb.start();
  }

  /** The drop-in jar of a Spark line in this build, or null. */
  static Path distJar(Path home, boolean spark4) throws IOException {
    Path dir =
        home.resolve(spark4 ? "courier-shuffle/dist-spark4/target" : "courier-shuffle/dist/target");
    String name =
        spark4 ? "courier-spark-4_2\\.13-.*\\.jar" : "courier-spark-3\\.5_2\\.12-.*\\.jar";
    if (!Files.isDirectory(dir)) {
      return null;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().matches(name)).findFirst().orElse(null);
    }
  }

  private static Path pysparkEnv(Path home, String version) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder("bash", home.resolve("bin/lib/pyspark-env.sh").toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("COFLOW_PYSPARK", version);
    Process p = pb.start();
    String outText = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    try {
      if (p.waitFor() != 0 || outText.isEmpty()) {
        throw new IOException(
            "setting up pyspark "
                + version
                + " failed (bin/lib/pyspark-env.sh exit "
                + p.exitValue()
                + "; is it on PyPI?)");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while setting up pyspark " + version);
    }
    String[] lines = outText.split("\n");
    return Path.of(lines[lines.length - 1].trim());
  }

  /**
   * pyspark {@code version}'s {@code spark-submit} (installed into the cache on first use) with the
   * drop-in jar of its line; null, after saying why, if the jar is not built.
   */
  public static Submitter submitter(Path home, String version, PrintStream err) throws IOException {
    SparkSubmit s =
        SparkSubmit.prepare(home, "spark testbed", SparkSubmit.pysparkVersion(version), err);
    if (s == null) {
      return null;
    }
    return new Submitter() {
      @Override
      public Path sparkHome() throws IOException {
        return s.sparkHome();
      }

      @Override
      public List<String> command(String master, boolean plugin) {
        return plugin ? s.command(master) : s.bareCommand(master);
      }

      @Override
      public Process start(List<String> cmd, Path log, String localIp) throws IOException {
        return s.start(cmd, log, localIp);
      }

      @Override
      public Map<String, Map<String, Long>> executorMetrics(Path dir) throws IOException {
        return SparkDifferentialJob.readMetrics(dir);
      }
    };
  }
}
