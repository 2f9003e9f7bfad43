package org.coflow.bench.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.coflow.bench.swim.SwimPlan;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.coflow.sim.report.Json;
import org.coflow.sim.report.Stats;

/**
 * {@code bin/coflow bench swim}: a SWIM workload replayed on a two-NodeManager MiniMRYarnCluster
 * (in a JVM of its own, with Hadoop 3.4 and the shaded jar) through the Courier agents under fair
 * sharing and under a coflow policy, and with Hadoop's stock shuffle; prints average and p95 job
 * times and their ratios.
 */
final class SwimBenchCommand {
  static final String HELP =
      """
      Usage: coflow bench swim [--trace FILE] [--jobs N] [--bytes-divisor D] [--gap-divisor G]
                               [--policy NAME] [--link-rate RATE] [--runs LIST] [--rm HOST:PORT] [--json]

      Replays the first N jobs of a SWIM workload (Facebook 2009, shipped in bench/data/swim) as
      real MapReduce jobs, each submitted at its time: bytes divided by D, gaps by G. Every run
      starts its own two-NodeManager MiniMRYarnCluster whose NodeManagers run the Courier
      shuffle handler, its agents capped at --link-rate and reporting to a master started here.
        stock:  the jobs use Hadoop's own shuffle (the agents' cap does not apply to it)
        fair:   the jobs fetch through the agents; the master schedules by fair sharing
        policy: the same under --policy
      Prints each run's average and p95 job time (submission to completion) and the ratios
      policy/fair and fair/stock (lower is better for the first).

        --trace FILE        SWIM .tsv (default bench/data/swim/FB-2009_samples_24_times_1hr_0_first50jobs.tsv)
        --jobs N            the first N jobs (default 50)
        --bytes-divisor D   divide input, shuffle and output bytes by D (default 600: the 600-machine
                            cluster onto one machine)
        --gap-divisor G     divide the gaps between submissions by G (default 20)
        --policy NAME       coflow policy compared with fair sharing (default aalo)
        --link-rate RATE    each agent's cap on sending and on receiving (default 20m = 20 Mbit/s)
        --runs LIST         which runs, in order (default stock,fair,policy)
        --rm HOST:PORT      submit to this ResourceManager instead of a MiniMRYarnCluster (its
                            NodeManagers must run the handler; HADOOP_CONF_DIR names the file system)
        --json              print one JSON object instead of the table
      Logs of each run go to target/bench-swim/.
      """;
  static final String DEFAULT_TRACE =
      "bench/data/swim/FB-2009_samples_24_times_1hr_0_first50jobs.tsv";

  private SwimBenchCommand() {}

  /** One job's outcome in one run. */
  record Result(String job, double seconds, boolean ok, long shuffleBytes) {}

  static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench swim",
            argv,
            Set.of(
                "trace",
                "jobs",
                "bytes-divisor",
                "gap-divisor",
                "policy",
                "link-rate",
                "runs",
                "rm"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    int jobs;
    double bytesDivisor;
    double gapDivisor;
    double linkRate;
    try {
      jobs = Integer.parseInt(a.get("jobs", "50"));
      bytesDivisor = Double.parseDouble(a.get("bytes-divisor", "600"));
      gapDivisor = Double.parseDouble(a.get("gap-divisor", "20"));
    } catch (NumberFormatException e) {
      throw new UsageException(
          "coflow bench swim: --jobs, --bytes-divisor and --gap-divisor take numbers ("
              + e.getMessage()
              + ")");
    }
    try {
      linkRate = Units.parseBitRate(a.get("link-rate", "20m"));
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "coflow bench swim: --link-rate '" + a.get("link-rate", "") + "': " + e.getMessage());
    }
    if (!(bytesDivisor >= 1) || !(gapDivisor >= 1)) {
      throw new UsageException(
          "coflow bench swim: --bytes-divisor and --gap-divisor must be at least 1 (got "
              + a.get("bytes-divisor", "600")
              + " and "
              + a.get("gap-divisor", "20")
              + ")");
    }
    if (jobs < 1 || jobs > 100_000) {
      throw new UsageException(
          "coflow bench swim: --jobs " + jobs + " is out of range; use 1 to 100000");
    }
    List<String> runs = List.of(a.get("runs", "stock,fair,policy").split(","));
    for (String r : runs) {
      if (!Set.of("stock", "fair", "policy").contains(r)) {
        throw new UsageException(
            "coflow bench swim: --runs: '" + r + "' is not a run; use stock, fair, policy");
      }
    }
    Path trace = a.has("trace") ? Path.of(a.get("trace", "")) : home.resolve(DEFAULT_TRACE);
    if (!Files.isRegularFile(trace)) {
      throw new UsageException("coflow bench swim: --trace " + trace + " is not a file");
    }
    List<SwimPlan.Job> plan;
    try {
      plan = SwimPlan.plan(trace, jobs, bytesDivisor, gapDivisor);
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench swim: " + e.getMessage());
    }
    String policy = a.get("policy", "aalo");
    String classpath = replayClasspath(home);
    Path work = Files.createDirectories(home.resolve("target/bench-swim"));
    Path planFile = work.resolve("plan.tsv");
    SwimPlan.write(plan, planFile);
    err.println("coflow bench swim: " + trace.getFileName() + ", " + SwimPlan.describe(plan));
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.master", "warn");
    Config config =
        Config.defaults()
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.POLICY, "fair");
    Map<String, List<Result>> results = new LinkedHashMap<>();
    try (MasterServer master = MasterServer.start(config, null)) {
      for (String r : runs) {
        String p = r.equals("policy") ? policy : "fair";
        if (!r.equals("stock")) {
          try {
            master.service().setPolicy(p);
          } catch (IllegalArgumentException e) {
            throw new UsageException("coflow bench swim: --policy: " + e.getMessage());
          }
        }
        err.println(
            "coflow bench swim: run "
                + r
                + (r.equals("stock")
                    ? " (Hadoop's shuffle)"
                    : " (agents at " + Units.formatBitRate(linkRate) + ", " + p + ")")
                + "...");
        err.flush();
        List<String> cmd =
            new ArrayList<>(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx1g",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "-cp",
                    classpath,
                    "org.coflow.mr.swim.SwimReplay",
                    planFile.toString(),
                    work.resolve(r + ".tsv").toString(),
                    r.equals("stock") ? "stock" : "courier",
                    work.resolve("jobs").toString(),
                    "--master",
                    "127.0.0.1:" + master.port(),
                    "--link-rate",
                    Long.toString(Math.round(linkRate * 8))));
        if (a.has("rm")) {
          cmd.addAll(List.of("--rm", a.get("rm", "")));
        }
        Files.deleteIfExists(work.resolve(r + ".tsv"));
        Process proc =
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(work.resolve(r + ".log").toFile())
                .start();
        if (!proc.waitFor(3, TimeUnit.HOURS) || proc.exitValue() != 0) {
          proc.destroyForcibly();
          err.println(
              "coflow bench swim: the " + r + " run failed; see " + work.resolve(r + ".log"));
          return 1;
        }
        results.put(r, parse(Files.readAllLines(work.resolve(r + ".tsv"), StandardCharsets.UTF_8)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    Report rep =
        new Report(
            trace.getFileName().toString(),
            plan.size(),
            bytesDivisor,
            gapDivisor,
            linkRate,
            policy,
            results);
    out.print(a.has("json") ? rep.json() + "\n" : rep.table());
    return rep.failures() == 0 ? 0 : 1;
  }

  /** The replay's class path: mapreduce-it's jar and libraries (Hadoop 3.4, the shaded jar). */
  static String replayClasspath(Path home) throws IOException {
    Path target = home.resolve("mapreduce-it/target");
    Path lib = target.resolve("lib");
    Path jar = null;
    if (Files.isDirectory(target)) {
      try (Stream<Path> s = Files.list(target)) {
        jar =
            s.filter(
                    p ->
                        p.getFileName().toString().matches("coflow-mapreduce-it-.*\\.jar")
                            && !p.getFileName().toString().endsWith("-tests.jar"))
                .findFirst()
                .orElse(null);
      }
    }
    if (jar == null || !Files.isDirectory(lib)) {
      throw new IOException(
          "coflow bench swim needs the packaged mapreduce-it module ("
              + target
              + "); build it with: mvn -DskipTests package");
    }
    return jar + File.pathSeparator + lib + File.separator + "*";
  }

  /** Result lines of SwimReplay: job, submit ms, duration ms, ok, shuffle bytes, reducers. */
  static List<Result> parse(List<String> lines) {
    List<Result> out = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.split("\t");
      if (f.length == 6) {
        out.add(
            new Result(
                f[0],
                Long.parseLong(f[2]) / 1000.0,
                Boolean.parseBoolean(f[3]),
                Long.parseLong(f[4])));
      }
    }
    return out;
  }

  /** The figures of one invocation. */
  record Report(
      String trace,
      int jobs,
      double bytesDivisor,
      double gapDivisor,
      double linkRate,
      String policy,
      Map<String, List<Result>> results) {

    Stats stats(String run, boolean shuffleOnly) {
      return Stats.of(
          results.get(run).stream()
              .filter(r -> !shuffleOnly || r.shuffleBytes() > 0)
              .mapToDouble(Result::seconds)
              .toArray());
    }

    long failures() {
      return results.values().stream().flatMap(List::stream).filter(r -> !r.ok()).count();
    }

    Double ratio(String a, String b, boolean p95) {
      if (!results.containsKey(a) || !results.containsKey(b)) {
        return null;
      }
      Stats x = stats(a, false);
      Stats y = stats(b, false);
      return p95 ? x.p95() / y.p95() : x.avg() / y.avg();
    }

    String table() {
      StringBuilder sb = new StringBuilder();
      sb.append(
          String.format(
              Locale.ROOT,
              "SWIM %s: %d jobs, bytes/%s, gaps/%s, agents at %s%n",
              trace,
              jobs,
              fmt(bytesDivisor),
              fmt(gapDivisor),
              Units.formatBitRate(linkRate)));
      sb.append(
          String.format(
              Locale.ROOT,
              "  %-8s %-6s %6s %9s %9s %12s %12s%n",
              "run",
              "policy",
              "failed",
              "avg_s",
              "p95_s",
              "avg_s(shuf)",
              "p95_s(shuf)"));
      for (String r : results.keySet()) {
        Stats all = stats(r, false);
        Stats sh = stats(r, true);
        long failed = results.get(r).stream().filter(x -> !x.ok()).count();
        sb.append(
            String.format(
                Locale.ROOT,
                "  %-8s %-6s %6d %9.2f %9.2f %12.2f %12.2f%n",
                r,
                r.equals("stock") ? "-" : r.equals("policy") ? policy : "fair",
                failed,
                all.avg(),
                all.p95(),
                sh.avg(),
                sh.p95()));
      }
      line(sb, "policy/fair", ratio("policy", "fair", false), ratio("policy", "fair", true));
      line(sb, "fair/stock", ratio("fair", "stock", false), ratio("fair", "stock", true));
      return sb.toString();
    }

    private static void line(StringBuilder sb, String what, Double avg, Double p95) {
      if (avg != null) {
        sb.append(String.format(Locale.ROOT, "  %s: avg %.3f, p95 %.3f%n", what, avg, p95));
      }
    }

    private static String fmt(double d) {
      return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    String json() {
      Json j =
          new Json()
              .put("trace", trace)
              .put("jobs", jobs)
              .put("bytes_divisor", bytesDivisor)
              .put("gap_divisor", gapDivisor)
              .put("link_rate_bps", linkRate * 8)
              .put("policy", policy)
              .put("failed_jobs", failures());
      for (String r : results.keySet()) {
        Stats s = stats(r, false);
        j.put(r, new Json().put("avg_s", s.avg()).put("p95_s", s.p95()).put("jobs", s.count()));
      }
      Double pa = ratio("policy", "fair", false);
      if (pa != null) {
        j.put("policy_over_fair_avg", pa)
            .put("policy_over_fair_p95", ratio("policy", "fair", true));
      }
      Double fa = ratio("fair", "stock", false);
      if (fa != null) {
        j.put("fair_over_stock_avg", fa).put("fair_over_stock_p95", ratio("fair", "stock", true));
      }
      return j.toString();
    }
  }
}
