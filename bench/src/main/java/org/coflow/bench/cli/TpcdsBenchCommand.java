package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.coflow.bench.tpcds.EventLogFetchWait;
import org.coflow.bench.tpcds.EventLogFetchWait.Reads;
import org.coflow.bench.tpcds.TpcdsBenchApp;
import org.coflow.bench.tpcds.TpcdsGenerator;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;

/**
 * {@code bin/coflow bench tpcds}: queries derived from TPC-DS on a real {@code spark-submit} {@code
 * local-cluster} with the Courier shuffle manager. One application runs a single stream with
 * Spark's own fetch and through the agents side by side (time ratio ours/stock); then, with the
 * agents' link rate set, several concurrent streams run once under fair sharing and once under a
 * coflow policy (average query time ratio policy/fair).
 */
final class TpcdsBenchCommand {
  static final String HELP =
      """
      Usage: coflow bench tpcds [--scale SF] [--streams N] [--queries LIST] [--policy NAME]
                                [--link-rate RATE] [--only single|streams] [--gap SECONDS]
                                [--data DIR] [--http-port N] [--spark VERSION]
                                [--spark-conf spark.KEY=VALUE ...] [--json]

      Queries derived from TPC-DS (data from the Java port of dsdgen, generated once per scale
      into --data; query text read at run time from Spark's spark-sql tests jar) on a real
      spark-submit --master 'local-cluster[2,2,2048]' with our jar, broadcast joins off (every
      join shuffles), AQE on.
        single:  one stream; after an untimed run with each reader, each query runs twice
                 with Spark's own fetch and twice through the Courier agents in the same
                 application, in the order A B B A (A: stock and ours in turn from query to
                 query), so that a drift over the runs weighs on both readers alike. Prints each reader's
                 mean time per query and every run in order, the time ratio ours/stock over
                 the set (goal <= 1.00), what the order alone did (first run / the same
                 reader's last), each reader's shuffle fetch wait per run (summed over the
                 tasks, from Spark's event log) and checks every run gave the same rows. A
                 query that fails is reported in its row and left out of the totals, and the
                 others still run; the exit status is then 1.
        streams: N streams run the set at once, each from a different query and submitting
                 one every --gap seconds, through agents capped at --link-rate, once under
                 fair sharing and once under --policy. Prints the average query time of each
                 and their ratio policy/fair (lower is better).

        --scale SF       TPC-DS scale factor (default 1; generating SF 1 takes a few minutes once)
        --streams N      concurrent streams (default 3)
        --queries LIST   comma-separated queries (default %s)
        --policy NAME    coflow policy compared with fair sharing (default varys: it knows
                         each shuffle's size from the map statuses; aalo, blind to sizes,
                         keeps nearly all of these queries' small shuffles in its first queue)
        --link-rate RATE each agent's cap on sending and on receiving in the streams runs
                         (default 20m = 20 Mbit/s: at 100m three streams on two cores
                         are CPU-bound and the links idle)
        --only WHAT      run only the single-stream or only the streams part
        --gap SECONDS    each stream submits its next query every SECONDS whether or not its
                         last one ended (open loop: each query in a scheduler pool of its own,
                         its time counted from its submission). Default 50: on a 2-core
                         machine at SF 1 and 20m, about what the cluster completes, so queries
                         overlap. 0: back to back, where the mean query time is the streams'
                         count over their throughput (Little's law) and an ordering policy
                         can only change the throughput. Elsewhere, pick about N times the
                         back-to-back run's wall time per query
        --data DIR       where generated data is kept (default target/tpcds under the project)
        --spark VERSION  the Spark to run on, with our jar for its line: 3.5 (pyspark 3.5.9,
                         the default), 4 (4.3.0), 4.0-4.3 or an exact pyspark version
        --spark-conf spark.KEY=VALUE
                         a Spark setting for every run, both readers (repeatable). The two
                         executors stand for two hosts, so both readers fetch each other's
                         blocks over the network (spark.shuffle.readHostLocalDisk=false);
                         spark.shuffle.readHostLocalDisk=true makes both read them from disk,
                         as on one real host, and then none go through the agents
        --http-port N    serve the master's dashboard and /api/state on this port while the
                         runs go (default: off; 0 picks a free one)
        --json           print one JSON object instead of the tables
      Logs of each spark-submit go to target/bench-tpcds/, the single run's Spark event log
      to target/bench-tpcds/single-events/.
      """;
  static final String DEFAULT_QUERIES = "q17,q25,q29,q47,q57,q74,q95";
  static final String CLUSTER = "local-cluster[2,2,2048]";

  private TpcdsBenchCommand() {}

  static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench tpcds",
            argv,
            Set.of(
                "scale",
                "streams",
                "queries",
                "policy",
                "link-rate",
                "only",
                "data",
                "http-port",
                "gap",
                "spark",
                "spark-conf"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(String.format(Locale.ROOT, HELP, DEFAULT_QUERIES));
      return 0;
    }
    String spark = DemoCommand.sparkOption(a, "coflow bench tpcds");
    List<String> sparkConf = new ArrayList<>();
    for (String kv : a.all("spark-conf")) {
      if (!kv.matches("spark\\.[\\w.\\-]+=.*")) {
        throw new UsageException(
            "coflow bench tpcds: --spark-conf '" + kv + "': use spark.KEY=VALUE");
      }
      sparkConf.addAll(List.of("--conf", kv));
    }
    double scale;
    int streams;
    double linkRate;
    int httpPort;
    double gap;
    try {
      scale = Double.parseDouble(a.get("scale", "1"));
      streams = Integer.parseInt(a.get("streams", "3"));
      linkRate = Units.parseBitRate(a.get("link-rate", "20m"));
      httpPort = Integer.parseInt(a.get("http-port", "-1"));
      gap = Double.parseDouble(a.get("gap", "50"));
    } catch (NumberFormatException e) {
      throw new UsageException(
          "coflow bench tpcds: a number was expected ("
              + e.getMessage()
              + "); see --help for each option's unit");
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench tpcds: " + e.getMessage());
    }
    if (!(scale > 0) || scale > 100) {
      throw new UsageException(
          "coflow bench tpcds: --scale "
              + a.get("scale", "")
              + " is out of range; use 0 < SF <= 100");
    }
    if (streams < 1 || streams > 32) {
      throw new UsageException(
          "coflow bench tpcds: --streams " + streams + " is out of range; use 1 to 32");
    }
    if (!(gap >= 0) || gap > 86400) {
      throw new UsageException(
          "coflow bench tpcds: --gap "
              + a.get("gap", "")
              + " is out of range; use 0 (back to back)"
              + " or the seconds between a stream's submissions");
    }
    String only = a.get("only", "");
    if (!only.isEmpty() && !only.equals("single") && !only.equals("streams")) {
      throw new UsageException("coflow bench tpcds: --only '" + only + "': use single or streams");
    }
    String policy = a.get("policy", "varys");
    Path work = Files.createDirectories(home.resolve("target/bench-tpcds"));
    List<String> queries = List.of(a.get("queries", DEFAULT_QUERIES).split(","));
    Path queryDir = Files.createDirectories(work.resolve("queries"));
    for (String q : queries) {
      try {
        Files.writeString(queryDir.resolve(q + ".sql"), TpcdsGenerator.query(q));
      } catch (IllegalArgumentException e) {
        throw new UsageException("coflow bench tpcds: --queries: " + e.getMessage());
      }
    }
    Path dataRoot = a.has("data") ? Path.of(a.get("data", "")) : home.resolve("target/tpcds");
    boolean json = a.has("json");
    if (!Files.exists(TpcdsGenerator.dir(dataRoot, scale).resolve("_COMPLETE"))) {
      err.printf(
          Locale.ROOT,
          "coflow bench tpcds: generating TPC-DS data at scale %s into %s (once)...%n",
          scale,
          TpcdsGenerator.dir(dataRoot, scale));
    }
    long t0 = System.nanoTime();
    Path data =
        TpcdsGenerator.generate(dataRoot, scale, Runtime.getRuntime().availableProcessors());
    if ((System.nanoTime() - t0) > 1e9) {
      err.printf(
          Locale.ROOT, "coflow bench tpcds: generated in %.0f s%n", (System.nanoTime() - t0) / 1e9);
    }
    SparkSubmit submit = SparkSubmit.prepare(home, "coflow bench tpcds", spark, err);
    if (submit == null) {
      return 1;
    }
    Path appJar = appJar();
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.master", "warn");
    Config config =
        Config.defaults()
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, httpPort)
            .with(MasterConfig.POLICY, "fair");
    Map<String, List<TpcdsReport.Run>> results = new LinkedHashMap<>();
    try (MasterServer master = MasterServer.start(config, null)) {
      if (master.httpPort() >= 0) {
        err.println(
            "coflow bench tpcds: the master's dashboard is at http://127.0.0.1:"
                + master.httpPort()
                + "/");
      }
      List<String> common = List.of(data.toString(), queryDir.toString());
      if (!only.equals("streams")) {
        progress(err, "single stream, stock and Courier fetch side by side");
        Path events = work.resolve("single-events");
        List<String> conf = concat(sparkConf, EventLogFetchWait.sparkConf(events));
        List<TpcdsReport.Run> r =
            submit(submit, appJar, work, "single", common, 1, 0, queries, conf, err);
        if (r == null) {
          return 1;
        }
        results.put("single", withReads(r, events, err));
      }
      if (!only.equals("single")) {
        for (String p : List.of("fair", policy)) {
          try {
            master.service().setPolicy(p);
          } catch (IllegalArgumentException e) {
            throw new UsageException("coflow bench tpcds: --policy: " + e.getMessage());
          }
          progress(err, streams + " streams under " + p + " at " + Units.formatBitRate(linkRate));
          List<TpcdsReport.Run> r =
              submit(
                  submit,
                  appJar,
                  work,
                  "streams-" + p,
                  common,
                  streams,
                  gap,
                  queries,
                  concat(
                      sparkConf,
                      List.of(
                          "--conf", "spark.shuffle.courier.master=127.0.0.1:" + master.port(),
                          "--conf", "spark.shuffle.courier.linkRate=" + Math.round(linkRate * 8),
                          "--conf", "spark.scheduler.mode=FAIR")),
                  err);
          if (r == null) {
            return 1;
          }
          results.put(p.equals("fair") ? "fair" : "policy", r);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    TpcdsReport rep =
        new TpcdsReport(scale, streams, gap, linkRate, policy, queries, results, submit.version());
    out.print(json ? rep.json() + "\n" : rep.table());
    if (json && !rep.failures().isEmpty()) {
      err.println("coflow bench tpcds: failed: " + String.join(", ", rep.failures().keySet()));
    }
    return rep.digestsAgree() && rep.failures().isEmpty() ? 0 : 1;
  }

  /** The single run's results with each run's shuffle reads from the application's event log. */
  private static List<TpcdsReport.Run> withReads(
      List<TpcdsReport.Run> runs, Path events, PrintStream err) {
    Map<String, Reads> reads;
    try {
      reads = EventLogFetchWait.readDir(events);
    } catch (IOException e) {
      err.println("coflow bench tpcds: fetch wait not shown: " + e.getMessage());
      return runs;
    }
    return runs.stream()
        .map(
            r -> r.with(reads.getOrDefault(TpcdsBenchApp.jobGroup(r.query(), r.way()), Reads.NONE)))
        .toList();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static void progress(PrintStream err, String what) {
    err.println("coflow bench tpcds: " + what + "...");
    err.flush();
  }

  private static List<TpcdsReport.Run> submit(
      SparkSubmit submit,
      Path appJar,
      Path work,
      String name,
      List<String> common,
      int streams,
      double gap,
      List<String> queries,
      List<String> conf,
      PrintStream err)
      throws IOException, InterruptedException {
    Path out = work.resolve(name + ".tsv");
    Files.deleteIfExists(out);
    List<String> cmd = submit.command(CLUSTER);
    cmd.addAll(
        List.of(
            "--driver-memory",
            "2g",
            "--conf",
            "spark.sql.autoBroadcastJoinThreshold=-1",
            "--conf",
            "spark.sql.adaptive.enabled=true"));
    cmd.addAll(conf);
    cmd.addAll(
        List.of(
            "--class",
            TpcdsBenchApp.class.getName(),
            appJar.toString(),
            name.startsWith("single") ? "single" : "streams",
            common.get(0),
            common.get(1),
            out.toString(),
            Integer.toString(streams),
            String.join(",", queries),
            Double.toString(gap)));
    if (!submit.run(
        cmd, work.resolve(name + ".log"), 120, "coflow bench tpcds: the " + name + " run", err)) {
      return null;
    }
    return TpcdsReport.parse(Files.readAllLines(out));
  }

  private static Path appJar() throws IOException {
    try {
      Path p =
          Path.of(TpcdsBenchApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!Files.isRegularFile(p)) {
        throw new IOException(
            "coflow bench tpcds runs from the packaged bench jar (found "
                + p
                + "); build it with: mvn -DskipTests package");
      }
      return p;
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
  }
}
