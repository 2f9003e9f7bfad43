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
import org.coflow.bench.sparktestbed.SparkTestbed;
import org.coflow.bench.sparktestbed.SparkTestbedReport;
import org.coflow.bench.sparktestbed.Submitter;
import org.coflow.bench.sparktestbed.Tenants;
import org.coflow.bench.sparktestbed.TpcdsTenants;
import org.coflow.bench.sparktestbed.TraceTenants;
import org.coflow.bench.tpcds.TpcdsGenerator;
import org.coflow.core.config.Args;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.core.policy.Policies;
import org.coflow.sim.cli.SimCommand;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.coflow.testbed.Network;
import org.coflow.testbed.Workload;
import org.coflow.testbed.cli.Options;

/** {@code bin/coflow bench spark-testbed}: real Spark with and without the plugin across hosts. */
public final class SparkTestbedBenchCommand {
  private static final String NAME = "coflow bench spark-testbed";

  static final String HELP =
      """
      Usage: coflow bench spark-testbed [--workload trace|tpcds] [--spark 3.5|4|VERSION]
                                        [--setups stock,stock-ess,embedded,agents,fair,varys]
                                        [--hosts 4] [--rate 30m] [--buffer 128k] [--tcp reno]
                                        [--rto-min MS] [--notsent-lowat 128k]
                                        [--apps 2] [--max-tasks 8] [--trace FILE] [--first 330]
                                        [--coflows 40] [--bytes-divisor 100] [--time-divisor 10]
                                        [--streams 3] [--gap 20] [--queries LIST] [--scale 1]
                                        [--data DIR] [--executor-cores 4]
                                        [--executor-memory 640m] [--warmup 768m]
                                        [--repeat 1]
                                        [--spark-conf spark.KEY=VALUE ...]
                                        [--agent-java-opts OPTS]
                                        [--timeout 30] [--out DIR] [--json]

      Real Spark applications, several at once, on a standalone cluster across N network-
      namespace hosts shaped as 'coflow bench testbed' shapes them (--rate, --buffer, --tcp,
      --rto-min, --notsent-lowat: see its --help): the Spark master and the drivers in the root
      namespace, one worker per host namespace, so every executor lives on a host and every
      remote fetch crosses a shaped link. Spark is pyspark's (--spark: %s). Needs root.

      Workloads (open loop: a job is submitted at its time whether or not earlier ones ended):
        trace   the Facebook trace slice (--first, --coflows, --bytes-divisor, --time-divisor,
                as in 'bench testbed'), coflow i in application i mod --apps; each coflow is a
                job whose map stage writes exactly the trace's bytes per reducer (uncompressed
                random bytes, a reducer's share split evenly over the mappers; at most
                --max-tasks map and reduce tasks) and whose reduce stage reads them and sums
                their CRC32s. The default slice (coflows 330-369) has no one coflow with most
                of the bytes
        tpcds   --streams TPC-DS query streams (the 'bench tpcds' queries and data), one
                application each, each submitting a query every --gap seconds

      Each application gets one executor per host with --executor-cores task slots (tasks
      waiting on fetches use no CPU, so the workers offer more slots than the machine has
      cores; a small job then waits for the network, not for a large job's tasks).

      --spark-conf adds a setting to every application of every setup (for instance
      spark.executor.extraJavaOptions to profile the executors); --agent-java-opts adds JVM
      options to the host agents and the master (default heap -Xmx512m).

      Each setup's cluster first runs an untimed warm-up application (--warmup bytes in four
      all-to-all shuffles, on unshaped links; 0 skips it): Spark's workers, the external shuffle service, the host
      agents and the master are long-lived daemons that a running cluster has long warmed, while
      fresh ones would spend the measured minutes compiling their hot paths. The measured
      applications' executors and drivers start cold in every setup, as in production. The
      host agents' stream counts include the warm-up.

      Setups, each on a fresh cluster, in rounds (--repeat):
        stock       Spark alone: its own Netty fetch, no jar of this project
        stock-ess   the same with each worker's external shuffle service (port 7337)
        embedded    the plugin, each executor with its own agent, no master
        agents      the plugin with one agent per host (bin/coflow agent, port 7447), shared by
                    every application on the host, no master
        POLICY      those host agents with the master (bin/coflow master in the root
                    namespace, with a token) running POLICY:
                    fair, aalo, varys, sincronia, graviton, baraat, creek, coda

      Prints per setup, as medians over the rounds: the average, p95, small-half and large-half
      job time (from each application's event log, submission to end; halves by shuffle bytes),
      each as a ratio to stock Spark of the same round; the tasks' summed fetch wait, garbage
      collection and deserialisation (which includes fetching the task's broadcast); TCP
      retransmissions and timeouts over all hosts; the most connections one host held; the bytes
      on the drivers' link (broadcasts, results); the machine's CPU use and the busiest host
      link's utilisation while jobs ran (a CPU-bound run shows as such); jobs whose result equals
      the stock run's (digest of every reducer's bytes and CRCs, or of a query's rows). --out
      (default target/spark-testbed) gets jobs.csv, summary.json, job-cdf.png and every run's
      logs. Exits 1 if a job failed, a result differed, or a plugin reader fell back to Spark's
      fetch.
      """;

  private SparkTestbedBenchCommand() {}

  public static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            NAME,
            argv,
            Set.of(
                "workload",
                "spark",
                "setups",
                "hosts",
                "rate",
                "buffer",
                "tcp",
                "rto-min",
                "notsent-lowat",
                "apps",
                "max-tasks",
                "trace",
                "first",
                "coflows",
                "bytes-divisor",
                "time-divisor",
                "streams",
                "gap",
                "queries",
                "scale",
                "data",
                "executor-memory",
                "executor-cores",
                "spark-conf",
                "agent-java-opts",
                "warmup",
                "repeat",
                "timeout",
                "out"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(String.format(Locale.ROOT, HELP, SparkSubmit.SPARK_OPTION_HELP));
      return 0;
    }
    int hosts = Options.positive(NAME, a, "hosts", "4");
    if (hosts < 2 || hosts > 16) {
      throw new UsageException(NAME + ": --hosts " + hosts + ": use 2 to 16");
    }
    Network.Link link = Options.link(NAME, a, "30m");
    String spark;
    try {
      spark = SparkSubmit.pysparkVersion(a.get("spark", "3.5"));
    } catch (IllegalArgumentException e) {
      throw new UsageException(NAME + ": " + e.getMessage());
    }
    LinkedHashSet<SparkTestbed.Setup> setups = new LinkedHashSet<>();
    for (String s : a.get("setups", "stock,stock-ess,embedded,agents,fair,varys").split(",")) {
      String name = s.trim();
      if (!SparkTestbed.Setup.BASES.contains(name) && !Policies.NAMES.contains(name)) {
        throw new UsageException(
            NAME
                + ": --setups: unknown setup '"
                + name
                + "'; use "
                + String.join(", ", SparkTestbed.Setup.BASES)
                + " or a policy: "
                + String.join(", ", Policies.NAMES));
      }
      setups.add(new SparkTestbed.Setup(name));
    }
    Path outDir = Path.of(a.get("out", "target/spark-testbed")).toAbsolutePath();
    Tenants tenants = tenants(a, home, hosts, outDir, err);
    if (tenants == null) {
      return 1;
    }
    long executorMemory = Options.parse(NAME, a, "executor-memory", "640m", Units::parseBytes);
    if (executorMemory < (256L << 20) || executorMemory > (8L << 30)) {
      throw new UsageException(
          NAME + ": --executor-memory " + a.get("executor-memory", "") + ": use 256m to 8g");
    }
    long warmup = Options.parse(NAME, a, "warmup", "768m", Units::parseBytes);
    if (warmup < 0) {
      throw new UsageException(NAME + ": --warmup " + a.get("warmup", "") + ": use 0 or more");
    }
    List<String> sparkConf = new ArrayList<>();
    for (String kv : a.all("spark-conf")) {
      if (!kv.matches("spark\\.[\\w.\\-]+=.*")) {
        throw new UsageException(NAME + ": --spark-conf '" + kv + "': use spark.KEY=VALUE");
      }
      sparkConf.add(kv);
    }
    int executorCores = Options.positive(NAME, a, "executor-cores", "4");
    if (executorCores > 32) {
      throw new UsageException(NAME + ": --executor-cores " + executorCores + ": use 1 to 32");
    }
    SparkTestbed.Plan plan =
        new SparkTestbed.Plan(
            hosts,
            link,
            spark,
            tenants,
            List.copyOf(setups),
            Options.positive(NAME, a, "repeat", "1"),
            executorCores,
            (int) (executorMemory >> 20),
            sparkConf,
            warmup,
            Options.positive(NAME, a, "timeout", "30"),
            List.of(
                "env",
                "COFLOW_NO_BUILD=1",
                ("COFLOW_JAVA_OPTS=-Xmx512m " + a.get("agent-java-opts", "")).strip(),
                home.resolve("bin/coflow").toString()),
            outDir);
    String why = Network.unavailableReason();
    if (why != null) {
      err.println(NAME + ": cannot build the testbed here: " + why);
      return 1;
    }
    boolean json = a.has("json");
    List<SparkTestbed.Run> runs;
    try {
      Submitter submit = SparkSubmit.submitter(home, spark, err);
      if (submit == null) {
        return 1;
      }
      runs = SparkTestbed.run(plan, submit, progress(err, plan, json));
    } catch (IOException | RuntimeException e) {
      err.println();
      err.println(NAME + ": the run failed: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    SparkTestbedReport report = new SparkTestbedReport(plan, runs);
    report.write(outDir);
    if (json) {
      out.println(report.json());
    } else {
      report.printTable(out);
      err.println("wrote " + outDir + " (jobs.csv, summary.json, job-cdf.png, round-*/)");
    }
    return report.problems().isEmpty() ? 0 : 1;
  }

  private static Tenants tenants(Args a, Path home, int hosts, Path outDir, PrintStream err)
      throws UsageException, IOException {
    String workload = a.get("workload", "trace");
    if (workload.equals("trace")) {
      Path tracePath =
          a.has("trace") ? Path.of(a.get("trace", null)) : home.resolve(SimCommand.DEFAULT_TRACE);
      Trace trace;
      try {
        trace = TraceParser.parse(tracePath);
      } catch (IOException | org.coflow.sim.trace.TraceFormatException | RuntimeException e) {
        err.println(NAME + ": cannot read the trace " + tracePath + ": " + e.getMessage());
        return null;
      }
      try {
        return new TraceTenants(
            Workload.fromTrace(
                trace,
                hosts,
                Options.nonNegative(NAME, a, "first", "330"),
                Options.positive(NAME, a, "coflows", "40"),
                Options.parse(NAME, a, "bytes-divisor", "100", Double::parseDouble),
                Options.parse(NAME, a, "time-divisor", "10", Double::parseDouble)),
            Options.positive(NAME, a, "apps", "2"),
            Options.positive(NAME, a, "max-tasks", "8"));
      } catch (IllegalArgumentException e) {
        throw new UsageException(NAME + ": " + e.getMessage());
      }
    }
    if (!workload.equals("tpcds")) {
      throw new UsageException(NAME + ": --workload '" + workload + "': use trace or tpcds");
    }
    double scale = Options.parse(NAME, a, "scale", "1", Double::parseDouble);
    if (!(scale > 0) || scale > 100) {
      throw new UsageException(NAME + ": --scale " + scale + ": use 0 < SF <= 100");
    }
    List<String> queries = List.of(a.get("queries", TpcdsBenchCommand.DEFAULT_QUERIES).split(","));
    Path queryDir = Files.createDirectories(outDir.resolve("queries"));
    for (String q : queries) {
      try {
        Files.writeString(queryDir.resolve(q + ".sql"), TpcdsGenerator.query(q));
      } catch (IllegalArgumentException e) {
        throw new UsageException(NAME + ": --queries: " + e.getMessage());
      }
    }
    Path dataRoot = a.has("data") ? Path.of(a.get("data", "")) : home.resolve("target/tpcds");
    if (!Files.exists(TpcdsGenerator.dir(dataRoot, scale).resolve("_COMPLETE"))) {
      err.println(NAME + ": generating TPC-DS data at scale " + scale + " (once)...");
    }
    Path data =
        TpcdsGenerator.generate(dataRoot, scale, Runtime.getRuntime().availableProcessors());
    try {
      return new TpcdsTenants(
          data,
          queryDir,
          queries,
          Options.positive(NAME, a, "streams", "3"),
          Options.parse(NAME, a, "gap", "20", Double::parseDouble));
    } catch (IllegalArgumentException e) {
      throw new UsageException(NAME + ": " + e.getMessage());
    }
  }

  /** A status line on a terminal, else a line per phase. */
  private static SparkTestbed.Progress progress(
      PrintStream err, SparkTestbed.Plan plan, boolean json) {
    if (json) {
      return (setup, round, what) -> {};
    }
    boolean terminal = System.console() != null;
    long t0 = System.nanoTime();
    int total = plan.setups().size() * plan.repeat();
    int[] done = {0};
    String[] last = {""};
    return (setup, round, what) -> {
      String key = setup + "/" + round;
      if (!key.equals(last[0])) {
        last[0] = key;
        done[0]++;
      }
      int filled = 20 * (done[0] - 1) / total;
      String line =
          String.format(
              Locale.ROOT,
              "[%s%s] run %d/%d, %.0f s: round %d, %s: %s",
              "#".repeat(filled),
              ".".repeat(20 - filled),
              done[0],
              total,
              (System.nanoTime() - t0) / 1e9,
              round,
              setup,
              what);
      if (terminal) {
        err.print("\r" + line + " ".repeat(Math.max(0, 100 - line.length())));
      } else {
        err.println("spark-testbed: " + line);
      }
      err.flush();
    };
  }
}
