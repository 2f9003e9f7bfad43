package org.coflow.bench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.coflow.sim.report.Json;

/**
 * {@code bin/coflow demo}: the project end to end. A real {@code spark-submit} (pyspark's, set up
 * and cached by {@code bin/lib/pyspark-env.sh}) runs a large and a small shuffle at once on a
 * {@code local-cluster} whose executors each embed a Courier agent under a link rate, reporting to
 * a master started here; once under fair sharing, once under a coflow policy. Prints each shuffle's
 * completion time side by side and how much sooner the small one finished.
 */
final class DemoCommand {
  static final String HELP =
      """
      Usage: coflow demo [--policy NAME] [--link-rate RATE] [--large SIZE] [--small SIZE]
                         [--delay S] [--http-port N] [--spark VERSION] [--json]
             coflow demo --dark [...]   the same jobs with Spark's own shuffle and the
                                        coda-agent (coflow demo --dark --help)

      Runs a real Spark application (spark-submit --master 'local-cluster[2,4,1024]', our jar
      added as the README says) that shuffles a large and a small data set at the same time,
      the small one starting --delay seconds after the large one's reduce tasks began reading
      (4 reduce tasks each: half the slots, so neither job waits for a slot and only the
      network differs between the runs; hence 4 cores per executor). Both data sets are cached
      first, half on each executor, so every run moves the same bytes over the same links.
      Every executor embeds a Courier agent capped at --link-rate; a master started here
      schedules them. The application runs twice, under fair sharing and under --policy, and the
      command prints each shuffle's completion time (from its reading stage's submission to its
      end, measured in the driver) side by side, and CCT(small, policy) / CCT(small, fair)
      (expected <= 0.6).

      The first run of a Spark version installs its pyspark from PyPI into ~/.cache/coflow
      (320-460 MB each; set COFLOW_CACHE to move it). Logs of each run go to target/demo/.

        --policy NAME     the coflow policy to compare with fair sharing (default aalo)
        --link-rate RATE  each agent's cap on sending and on receiving (default 20m = 20 Mbit/s;
                          faster links leave the small shuffle's network time so short that
                          Spark's own per-stage costs, the same under every policy, dominate it)
        --large SIZE      bytes the large job shuffles (default 300m)
        --small SIZE      bytes the small job shuffles (default 25m: about 9 MB of it crosses
                          between the hosts, under Aalo's first queue threshold of 10 MiB)
        --delay S         seconds after the large shuffle's reading starts (default 0)
        --http-port N     the master's dashboard port (default 7091; 0 picks a free one)
        --spark VERSION   the Spark to run on, with our jar for its line: 3.5 (pyspark 3.5.9,
                          the default), 4 (pyspark 4.3.0), 4.0-4.3 (each line's newest) or an
                          exact pyspark version of those lines (e.g. 4.1.4)
        --json            print one JSON object instead of the table
      """;

  private static final Pattern SHUFFLE =
      Pattern.compile(
          "\\{\"shuffle\":\\s*(\\d+),\\s*\"stage\":\\s*(\\d+),"
              + "\\s*\"group\":\\s*\"(\\w*)\",\\s*\"cct_s\":\\s*([0-9.]+),\\s*\"bytes_read\":\\s*(\\d+)\\}");
  private static final Pattern JOB =
      Pattern.compile(
          "\"(large|small)\":\\s*\\{\"seconds\":\\s*([0-9.]+),"
              + "\\s*\"rows\":\\s*(\\d+),\\s*\"bytes\":\\s*(\\d+),\\s*\"expected_rows\":\\s*(\\d+)\\}");

  private DemoCommand() {}

  /** What one run measured for one job. */
  record JobResult(double shuffleCct, long shuffleBytes, double jobSeconds, boolean complete) {}

  static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow demo",
            argv,
            Set.of(
                "policy",
                "link-rate",
                "large",
                "small",
                "delay",
                "http-port",
                "first-queue",
                "spark"),
            Set.of("json", "help", "dark"));
    if (a.has("dark")) {
      if (a.has("help")) {
        out.print(DarkDemo.HELP);
        return 0;
      }
      return DarkDemo.run(a, home, out, err);
    }
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    if (a.has("first-queue")) {
      throw new UsageException("coflow demo: --first-queue goes with --dark");
    }
    String policy = a.get("policy", "aalo");
    long large;
    long small;
    double linkRate;
    double delay;
    int httpPort;
    try {
      linkRate = Units.parseBitRate(a.get("link-rate", "20m"));
      large = Units.parseBytes(a.get("large", "300m"));
      small = Units.parseBytes(a.get("small", "25m"));
      delay = Double.parseDouble(a.get("delay", "0"));
      httpPort = Integer.parseInt(a.get("http-port", "7091"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow demo: " + e.getMessage());
    }
    if (large <= small || small <= 0 || delay < 0) {
      throw new UsageException("coflow demo: need --large > --small > 0 and --delay >= 0");
    }
    String spark = DemoCommand.sparkOption(a, "coflow demo");
    SparkSubmit submit = SparkSubmit.prepare(home, "coflow demo", spark, err);
    if (submit == null) {
      return 1;
    }
    Path logs = Files.createDirectories(home.resolve("target/demo"));
    Path app = writeApp(logs);
    // The master's per-session INFO lines would drown the table.
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.master", "warn");
    Config config =
        Config.defaults()
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, httpPort)
            .with(MasterConfig.POLICY, "fair");
    Map<String, Map<String, JobResult>> results = new LinkedHashMap<>();
    String dashboard;
    try (MasterServer master = MasterServer.start(config, null)) {
      dashboard = master.httpPort() < 0 ? "off" : "http://127.0.0.1:" + master.httpPort() + "/";
      if (!a.has("json")) {
        out.println(
            "coflow demo: master on 127.0.0.1:"
                + master.port()
                + ", dashboard "
                + dashboard
                + " (live while the runs go)");
        out.flush();
      }
      for (String p : List.of("fair", policy)) {
        try {
          master.service().setPolicy(p);
        } catch (IllegalArgumentException e) {
          throw new UsageException("coflow demo: --policy: " + e.getMessage());
        }
        if (!a.has("json")) {
          out.println(
              "coflow demo: running under " + p + " (log: " + logs.resolve(p + ".log") + ")...");
          out.flush();
        }
        Map<String, JobResult> r =
            runOnce(submit, app, logs, p, master.port(), linkRate, large, small, delay, err);
        if (r == null) {
          return 1;
        }
        results.put(p, r);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    report(
        results, submit.version(), policy, linkRate, large, small, dashboard, a.has("json"), out);
    return 0;
  }

  private static Map<String, JobResult> runOnce(
      SparkSubmit submit,
      Path app,
      Path logs,
      String policy,
      int masterPort,
      double linkRate,
      long large,
      long small,
      double delay,
      PrintStream err)
      throws IOException, InterruptedException {
    List<String> cmd = submit.command("local-cluster[2,4,1024]");
    cmd.addAll(
        List.of(
            "--conf",
            "spark.shuffle.courier.master=127.0.0.1:" + masterPort,
            "--conf",
            "spark.shuffle.courier.linkRate=" + Math.round(linkRate * 8)));
    return runApp(submit, cmd, app, logs, policy, large, small, delay, "coflow demo", err);
  }

  /** The pyspark version of {@code command}'s {@code --spark} option (default 3.5). */
  static String sparkOption(Args a, String command) throws UsageException {
    try {
      return SparkSubmit.pysparkVersion(a.get("spark", "3.5"));
    } catch (IllegalArgumentException e) {
      throw new UsageException(command + ": " + e.getMessage());
    }
  }

  /** Writes the demo's Spark application into {@code logs}; returns its path. */
  static Path writeApp(Path logs) throws IOException {
    Path app = logs.resolve("coflow_demo.py");
    try (InputStream in =
        DemoCommand.class.getResourceAsStream("/org/coflow/bench/demo/coflow_demo.py")) {
      Files.copy(in, app, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    return app;
  }

  /**
   * One run of the demo's application: {@code cmd} is spark-submit with the run's own settings; the
   * settings every run shares (the driver's ShuffleTimes listener, FAIR pools, no AQE) and the
   * application's arguments are added here. Its log and result go to {@code logs/<run>.*}.
   *
   * @return the jobs' results, or null (and a message on {@code err}) if the run failed
   */
  static Map<String, JobResult> runApp(
      SparkSubmit submit,
      List<String> cmd,
      Path app,
      Path logs,
      String run,
      long large,
      long small,
      double delay,
      String command,
      PrintStream err)
      throws IOException, InterruptedException {
    Path result = logs.resolve(run + ".json");
    Files.deleteIfExists(result);
    cmd.addAll(
        List.of(
            "--conf",
            "spark.extraListeners=org.apache.spark.shuffle.courier.ShuffleTimes",
            "--conf",
            "spark.scheduler.mode=FAIR",
            "--conf",
            "spark.sql.adaptive.enabled=false",
            app.toString(),
            result.toString(),
            Double.toString(large / 1048576.0),
            Double.toString(small / 1048576.0),
            Double.toString(delay),
            "4"));
    if (!submit.run(cmd, logs.resolve(run + ".log"), 20, command + ": the " + run + " run", err)
        || !Files.exists(result)) {
      return null;
    }
    return parse(Files.readString(result));
  }

  /** Per job: its largest shuffle's completion time and bytes, and the job's own time. */
  static Map<String, JobResult> parse(String json) {
    Map<String, double[]> shuffles = new LinkedHashMap<>();
    Matcher m = SHUFFLE.matcher(json);
    while (m.find()) {
      long bytes = Long.parseLong(m.group(5));
      double[] best = shuffles.get(m.group(3));
      if (best == null || bytes > best[1]) {
        shuffles.put(m.group(3), new double[] {Double.parseDouble(m.group(4)), bytes});
      }
    }
    Map<String, JobResult> out = new LinkedHashMap<>();
    Matcher j = JOB.matcher(json);
    while (j.find()) {
      double[] s = shuffles.getOrDefault(j.group(1), new double[] {Double.NaN, 0});
      out.put(
          j.group(1),
          new JobResult(
              s[0], (long) s[1], Double.parseDouble(j.group(2)), j.group(3).equals(j.group(5))));
    }
    return out;
  }

  private static void report(
      Map<String, Map<String, JobResult>> results,
      String spark,
      String policy,
      double linkRate,
      long large,
      long small,
      String dashboard,
      boolean json,
      PrintStream out) {
    Map<String, JobResult> fair = results.get("fair");
    Map<String, JobResult> ours = results.get(policy);
    double ratio = ours.get("small").shuffleCct() / fair.get("small").shuffleCct();
    if (json) {
      Json j =
          new Json()
              .put("spark", spark)
              .put("policy", policy)
              .put("link_rate_bps", linkRate * 8)
              .put("large_bytes", large)
              .put("small_bytes", small);
      for (String p : List.of("fair", policy)) {
        for (String job : List.of("large", "small")) {
          JobResult r = results.get(p).get(job);
          String k = job + "_" + (p.equals("fair") ? "fair" : "policy");
          j.put(k + "_cct_s", r.shuffleCct())
              .put(k + "_job_s", r.jobSeconds())
              .put(k + "_complete", r.complete());
        }
      }
      out.println(j.put("small_cct_ratio", ratio).put("dashboard", dashboard));
      return;
    }
    out.printf(
        Locale.ROOT,
        "%nSpark %s, local-cluster[2,4,1024], agents capped at %s; a %s shuffle, then a %s one%n",
        spark,
        Units.formatBitRate(linkRate),
        Units.formatBytes(large),
        Units.formatBytes(small));
    out.printf(Locale.ROOT, "%-22s %12s %12s%n", "", "fair", policy);
    for (String job : List.of("large", "small")) {
      out.printf(
          Locale.ROOT,
          "%-22s %12.2f %12.2f%n",
          job + " shuffle CCT (s)",
          fair.get(job).shuffleCct(),
          ours.get(job).shuffleCct());
      out.printf(
          Locale.ROOT,
          "%-22s %12.2f %12.2f%n",
          job + " job time (s)",
          fair.get(job).jobSeconds(),
          ours.get(job).jobSeconds());
    }
    boolean complete =
        results.values().stream().flatMap(r -> r.values().stream()).allMatch(JobResult::complete);
    out.printf(
        Locale.ROOT,
        "CCT(small, %s) / CCT(small, fair) = %.2f (expected <= 0.6)%s%n",
        policy,
        ratio,
        complete ? "" : "  [some rows were lost!]");
    out.println("dashboard (while a master runs): " + dashboard);
  }
}
