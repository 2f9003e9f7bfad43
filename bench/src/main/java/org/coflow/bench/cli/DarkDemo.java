package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.coflow.bench.cli.DemoCommand.JobResult;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.core.identify.Accuracy;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterService;
import org.coflow.sim.identify.LabelScore;
import org.coflow.sim.report.Json;

/**
 * {@code bin/coflow demo --dark}: the demo's two jobs with Spark's own shuffle, no plugin, and the
 * coda-agent on every executor ({@code spark.executor.extraJavaOptions=-javaagent:...}). The agents
 * report the flows they send to a master started here and pace them at its rates; the master
 * identifies the coflows in the dark. Three runs: fair sharing, the policy on the identified
 * coflows, and the policy on the engine's own labels ({@code mode=labelled}).
 */
final class DarkDemo {
  static final String HELP =
      """
      Usage: coflow demo --dark [--policy NAME] [--link-rate RATE] [--large SIZE] [--small SIZE]
                                [--delay S] [--first-queue SIZE] [--http-port N]
                                [--spark VERSION] [--json]

      The demo's application (a large and a small shuffle at once on local-cluster[2,4,1024],
      see coflow demo --help) with Spark's OWN shuffle: no shuffle manager is set, our jar is
      only on the class path for the driver's ShuffleTimes listener. Every executor loads the
      coda-agent (coda-agent/agent/target/coda-agent.jar) with -javaagent: it sees the shuffle's
      TCP flows, reports them to a master started here as one host capped at --link-rate (both
      executors share it: a machine's link), and paces them at the master's rates. Three runs:
        fair       fair sharing
        dark       --policy on the coflows the master identifies (CODA, in the dark)
        labelled   --policy on the coflows the agents read from Spark's fetch requests
      Prints each shuffle's completion time per run, the identification's precision and recall
      against the labels (dark runs), and CCT(small) of the dark and labelled runs over fair's.

        --policy NAME       the coflow policy (default coda)
        --link-rate RATE    the host's link, shared by every flow (default 80m = 80 Mbit/s)
        --large SIZE        bytes the large job shuffles (default 120m)
        --small SIZE        bytes the small job shuffles (default 12m)
        --delay S           seconds after the large shuffle's reading starts (default 0)
        --first-queue SIZE  bytes of each flow sent before pacing applies (default 256k: Aalo's
                            10 MiB would leave every flow of a laptop-sized shuffle unpaced)
        --http-port N       the master's dashboard port (default 7091; 0 picks a free one)
        --spark VERSION     as in coflow demo (default 3.5; on Spark 4 the runs set
                            spark.shuffle.io.mode and spark.rpc.io.mode to NIO: from 4.1 Spark
                            picks Netty's native epoll, whose bytes the coda-agent cannot see)
        --json              print one JSON object instead of the table
      """;

  private static final List<String> RUNS = List.of("fair", "dark", "labelled");

  private DarkDemo() {}

  static int run(Args a, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    String policy = a.get("policy", "coda");
    long large;
    long small;
    long firstQueue;
    double linkRate;
    double delay;
    int httpPort;
    try {
      linkRate = Units.parseBitRate(a.get("link-rate", "80m"));
      large = Units.parseBytes(a.get("large", "120m"));
      small = Units.parseBytes(a.get("small", "12m"));
      firstQueue = Units.parseBytes(a.get("first-queue", "256k"));
      delay = Double.parseDouble(a.get("delay", "0"));
      httpPort = Integer.parseInt(a.get("http-port", "7091"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow demo --dark: " + e.getMessage());
    }
    if (large <= small || small <= 0 || delay < 0 || linkRate <= 0) {
      throw new UsageException(
          "coflow demo --dark: need --large > --small > 0, --delay >= 0 and --link-rate > 0");
    }
    String spark = DemoCommand.sparkOption(a, "coflow demo --dark");
    Path agentJar = home.resolve("coda-agent/agent/target/coda-agent.jar");
    if (!Files.isRegularFile(agentJar)) {
      err.println(
          "coflow demo --dark: no "
              + agentJar
              + "; build it with: mvn -q package -pl coda-agent/bootstrap,coda-agent/agent -am -DskipTests");
      return 1;
    }
    SparkSubmit submit = SparkSubmit.prepare(home, "coflow demo --dark", spark, err);
    if (submit == null) {
      return 1;
    }
    Path logs = Files.createDirectories(home.resolve("target/demo-dark"));
    Path app = DemoCommand.writeApp(logs);
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.master", "warn");
    Config config =
        Config.defaults()
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, httpPort)
            .with(MasterConfig.POLICY, "fair")
            .with(MasterConfig.IDENTIFY_MODE, "coda");
    LabelScore score = new LabelScore(MasterService.identifier(config));
    Map<String, Map<String, JobResult>> results = new LinkedHashMap<>();
    Accuracy accuracy = null;
    String dashboard;
    try (MasterServer master = MasterServer.start(config, score)) {
      dashboard = master.httpPort() < 0 ? "off" : "http://127.0.0.1:" + master.httpPort() + "/";
      if (!a.has("json")) {
        out.println(
            "coflow demo --dark: master on 127.0.0.1:"
                + master.port()
                + ", dashboard "
                + dashboard
                + " (live while the runs go)");
      }
      for (String run : RUNS) {
        try {
          master.service().setPolicy(run.equals("fair") ? "fair" : policy);
        } catch (IllegalArgumentException e) {
          throw new UsageException("coflow demo --dark: --policy: " + e.getMessage());
        }
        if (!a.has("json")) {
          out.println(
              "coflow demo --dark: the "
                  + run
                  + " run (log: "
                  + logs.resolve(run + ".log")
                  + ")...");
          out.flush();
        }
        String agentArgs =
            "master=127.0.0.1:"
                + master.port()
                + ",hostId=demo-host,linkRate="
                + Math.round(linkRate * 8)
                + ",firstQueue="
                + firstQueue
                + ",mode="
                + (run.equals("labelled") ? "labelled" : "dark");
        Map<String, JobResult> r =
            runOnce(submit, app, logs, run, agentJar, agentArgs, large, small, delay, err);
        if (r == null) {
          return 1;
        }
        results.put(run, r);
        if (run.equals("dark")) {
          accuracy = score.accuracy();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    report(
        results,
        submit.version(),
        accuracy,
        policy,
        linkRate,
        large,
        small,
        dashboard,
        a.has("json"),
        out);
    return 0;
  }

  private static Map<String, JobResult> runOnce(
      SparkSubmit submit,
      Path app,
      Path logs,
      String run,
      Path agentJar,
      String agentArgs,
      long large,
      long small,
      double delay,
      PrintStream err)
      throws IOException, InterruptedException {
    List<String> cmd = submit.stockShuffleCommand("local-cluster[2,4,1024]");
    cmd.addAll(
        List.of(
            "--conf", "spark.executor.extraJavaOptions=-javaagent:" + agentJar + "=" + agentArgs));
    if (SparkSubmit.isSpark4(submit.version())) {
      // Spark 4.1+ picks Netty's native epoll on Linux, whose bytes no bytecode advice sees.
      cmd.addAll(List.of("--conf", "spark.shuffle.io.mode=NIO", "--conf", "spark.rpc.io.mode=NIO"));
    }
    return DemoCommand.runApp(
        submit, cmd, app, logs, run, large, small, delay, "coflow demo --dark", err);
  }

  private static void report(
      Map<String, Map<String, JobResult>> results,
      String spark,
      Accuracy accuracy,
      String policy,
      double linkRate,
      long large,
      long small,
      String dashboard,
      boolean json,
      PrintStream out) {
    double fair = results.get("fair").get("small").shuffleCct();
    double dark = results.get("dark").get("small").shuffleCct() / fair;
    double labelled = results.get("labelled").get("small").shuffleCct() / fair;
    boolean complete =
        results.values().stream().flatMap(r -> r.values().stream()).allMatch(JobResult::complete);
    if (json) {
      Json j =
          new Json()
              .put("spark", spark)
              .put("policy", policy)
              .put("link_rate_bps", linkRate * 8)
              .put("large_bytes", large)
              .put("small_bytes", small);
      for (String run : RUNS) {
        for (String job : List.of("large", "small")) {
          JobResult r = results.get(run).get(job);
          j.put(job + "_" + run + "_cct_s", r.shuffleCct())
              .put(job + "_" + run + "_job_s", r.jobSeconds());
        }
      }
      out.println(
          j.put("identified_flows", accuracy.flows())
              .put("precision", accuracy.precision())
              .put("recall", accuracy.recall())
              .put("small_cct_ratio_dark", dark)
              .put("small_cct_ratio_labelled", labelled)
              .put("complete", complete)
              .put("dashboard", dashboard));
      return;
    }
    out.printf(
        Locale.ROOT,
        "%nSpark %s, local-cluster[2,4,1024], Spark's own shuffle, the coda-agent on both"
            + " executors; one host, link %s;%na %s shuffle, then a %s one%n",
        spark,
        Units.formatBitRate(linkRate),
        Units.formatBytes(large),
        Units.formatBytes(small));
    out.printf(
        Locale.ROOT,
        "%-22s %12s %14s %16s%n",
        "",
        "fair",
        policy + " (dark)",
        policy + " (labelled)");
    for (String job : List.of("large", "small")) {
      out.printf(
          Locale.ROOT,
          "%-22s %12.2f %14.2f %16.2f%n",
          job + " shuffle CCT (s)",
          results.get("fair").get(job).shuffleCct(),
          results.get("dark").get(job).shuffleCct(),
          results.get("labelled").get(job).shuffleCct());
      out.printf(
          Locale.ROOT,
          "%-22s %12.2f %14.2f %16.2f%n",
          job + " job time (s)",
          results.get("fair").get(job).jobSeconds(),
          results.get("dark").get(job).jobSeconds(),
          results.get("labelled").get(job).jobSeconds());
    }
    out.printf(
        Locale.ROOT,
        "identification (fair and dark runs): %d labelled flows, precision %.3f, recall %.3f%n",
        accuracy.flows(),
        accuracy.precision(),
        accuracy.recall());
    out.printf(
        Locale.ROOT,
        "CCT(small, %s dark) / CCT(small, fair) = %.2f%n"
            + "CCT(small, %s labelled) / CCT(small, fair) = %.2f%s%n",
        policy,
        dark,
        policy,
        labelled,
        complete ? "" : "  [some rows were lost!]");
    out.println("dashboard (while a master runs): " + dashboard);
  }
}
