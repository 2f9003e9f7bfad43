package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.coflow.bench.report.Bin;
import org.coflow.bench.report.Json;
import org.coflow.bench.report.Reports;
import org.coflow.bench.report.RunSummary;
import org.coflow.bench.report.Stats;
import org.coflow.bench.sim.SimResult;
import org.coflow.cli.Args;
import org.coflow.cli.UsageException;

/** {@code bin/coflow bench ...}: benchmarks that take minutes, never part of the default tests. */
final class BenchCommand {
  static final String HELP =
      """
      Usage: coflow bench sim [--trace FILE] [--policy LIST] [--courier] [--coflows N]
                              [--slice N] [--bandwidth RATE] [--json] [--coalesce W]
                              [--model M]
                              [--config FILE] [--conf KEY=VALUE ...]
             coflow bench master [--flows N] [--agents LIST] [--policy NAME] [--interval MS]
                                 [--seconds S] [--bandwidth RATE] [--http-port N] [--json]

      bench master: starts a real master and plays simulated agents against it over gRPC on
      loopback, each reporting its flows every interval and advancing them at the pushed rates.
      Prints, per run, the policy's decision time per round (p50/p99), whole rounds (merge +
      policy + push), and whether the master kept up (p99 round below the interval and no
      growing delay). --agents takes a comma-separated list to find the largest sustainable
      count; without --flows each agent has 100 flows, without --agents there is one agent per
      1000 flows. Defaults: aalo, 100 ms, 10 s per run, 10 Gbit/s hosts. --http-port serves the
      master's dashboard during the run.

             coflow bench agent [--size BYTES] [--blocks N] [--clients N] [--runs N]
                                [--max-num N] [--json]

      bench agent: fetch throughput and CPU per GB through two Courier agents against a direct
      zero-copy Netty fetch (one connection per client, no agents), alternating runs in one JVM on
      the same file; both write into files the clients name and verify every block (ADLER32).
      Warms both paths up until the JIT is quiet (3 to 12 rounds). Prints throughput_ratio (goal
      >= 1.00) and cpu_per_gb_ratio (goal <= 1.05; process CPU without the JIT compiler threads,
      also printed with them). Defaults: 512m, 32 blocks, 4 clients, 5 runs, MaxNum 8 (the
      fetching agent's connection budget).

             coflow bench tpcds [--scale SF] [--streams N] [--queries LIST] [--policy NAME]
                                [--link-rate RATE] [--only single|streams] [--spark VERSION]
                                [--spark-conf spark.KEY=VALUE ...] [--json]

      bench tpcds: queries derived from TPC-DS on a real spark-submit local-cluster with our jar:
      one stream with Spark's fetch and ours side by side (time ratio, goal <= 1.05), then
      concurrent streams under a link rate, fair sharing vs a coflow policy. See
      'coflow bench tpcds --help'.

             coflow bench swim [--trace FILE] [--jobs N] [--bytes-divisor D] [--gap-divisor G]
                               [--policy NAME] [--link-rate RATE] [--runs LIST] [--rm HOST:PORT] [--json]

      bench swim: a SWIM workload (Facebook 2009) replayed as real MapReduce jobs on a
      MiniMRYarnCluster with the drop-in jar: the stock shuffle, the agents under fair sharing
      and under a coflow policy; average and p95 job time ratios. See 'coflow bench swim --help'.

             coflow bench testbed [--hosts 8] [--rate 100m] [--policies LIST] [--courier on|off|both]
                                  [--max-num 1,4,8,adaptive] [--out DIR] [--json]

      bench testbed: a Facebook trace slice as real shuffles between network-namespace hosts
      (tc-shaped links, shallow port buffers; needs root): Hadoop-style per-reducer connections
      without agents, Courier under each policy, the same policies without merging, fixed and
      adaptive MaxNum; CCT, TCP retransmissions and timeouts, connections over time. See
      'coflow bench testbed --help'.

             coflow bench spark-testbed [--workload trace|tpcds] [--spark 3.5|4] [--setups LIST]
                                        [--hosts 4] [--rate 30m] [--repeat 1] [--out DIR] [--json]

      bench spark-testbed: real Spark applications, several at once, on a standalone cluster
      across network-namespace hosts (needs root): stock Spark, with its external shuffle
      service, and the plugin with embedded agents, host agents and each policy; job times from
      the event logs, ratios to stock, results compared, link and CPU use. See
      'coflow bench spark-testbed --help'.

             coflow bench identify [--flows LIST] [--framework spark|hadoop|mixed]
                                   [--workload normal|batch|stretched] [--json]

      bench identify: CODA's coflow identification (incremental Rough-DBSCAN) against R-DBSCAN
      and DBSCAN on labelled flows from the Facebook trace: precision, recall, time per round.
      See 'coflow bench identify --help'.

             coflow bench fuzz [--inputs N] [--seed S] [--check-every K] [--json]

      bench fuzz: a seeded fuzz of a real agent's handshake and frame decoder on loopback (a
      cluster secret, small bounds, a registered Spark map output): each input goes to a fresh
      connection (mutated preambles and HELLOs, wrong and oversized lengths, unknown types,
      protobuf garbage, AUTH before or instead of the challenge's answer, replayed and mis-bound
      proofs, frames of admitted peers sent early, NUL bytes in strings). Prints inputs by
      outcome (refused with an ERROR frame by code, closed, still open), inputs/s and the peak
      bytes of incomplete frames; every K inputs (default 10000) and at the end, checks that the
      agent forgot every fuzz connection and its bytes and that a client with the secret is
      served the right bytes. Exits 1 on any failure, an admitted fuzz connection above all (an
      authentication bypass). Default: 1000000 inputs, seed 1.

             coflow bench load [--streams N] [--idle N] [--direct-memory BYTES] [--clients N]
                               [--block-size BYTES] [--streams-per-connection N]
                               [--partial BYTES] [--dribble N] [--attacker-hosts N] [--keep]
                               [--json]

      bench load: one agent in a JVM of its own with a cluster secret, its direct memory capped
      (-XX:MaxDirectMemorySize of twice --direct-memory; coflow.courier.maxBufferedBytes of
      --direct-memory), under --idle hostile connections (silent ones; a first frame announcing
      16 MiB; a HELLO of 16 KiB never finished; peers with the secret that send --partial bytes of
      a 16 MiB request and stop) from --attacker-hosts loopback addresses (127.0.0.2 on), while
      --streams block streams of clients with the secret (from 127.0.0.1) run at once over
      --clients connections (the agent allows --streams-per-connection each), each block
      compared byte for byte; a stream refused with BUSY is retried. --dribble adds peers without
      the secret that send a HELLO one byte per segment. Before the streams, 40 newcomers (a
      client that connects afresh, proves the secret and fetches one block) arrive one after
      another, first without the attackers (after 40 more to warm up) and then among them: their p99 times side by side,
      goal <= 2x. Prints streams completed, refusals by bound, connections refused, peak direct
      and heap memory of the agent's JVM and whether an OutOfMemoryError occurred there; exits 1
      if one did, a stream failed or a newcomer did not get its block. Defaults: 1000
      streams, 500 idle, 64m, 8 clients, 256k blocks, 64 streams per connection, 1m partial
      requests, no dribblers, 4 attacker addresses.
      --keep leaves the run's directory (with the agent's log, agent.log) in place.

             coflow bench coda-agent [--connections N] [--seconds S] [--rounds R] [--warmup W]
                                     [--json]

      bench coda-agent: what the coda-agent (-javaagent) costs a JVM that keeps N loopback TCP
      connections full (one NIO selector thread writing 64 KiB direct buffers without blocking,
      one reading and discarding). A master runs in this process; each round runs that JVM twice,
      back to back and in alternating order, plain and with
      -javaagent:coda-agent/agent/target/coda-agent.jar=master=127.0.0.1:PORT,hostId=bench-host
      (the master's hosts have 1 Tbit/s, so its pace never binds). Fails unless the agent
      started, reached the master and the master saw a flow per connection. Prints per round the
      throughput and process CPU per GB in the measured window (after W s of warm-up) without and
      with the agent, then the medians of the rounds' throughput_ratio (with/without, goal >=
      0.99) and cpu_overhead (CPU per byte with/without - 1, goal <= 1%), CODA's §5.2 figures;
      also the JIT compilers' CPU and cpu_overhead without it, the CPU of the agent's own threads
      and of the master. Needs the agent jar:
      mvn -q package -pl coda-agent/bootstrap,coda-agent/agent -DskipTests.
      Defaults: 128 connections, 5 s, 3 rounds, 1 s warm-up.

             coflow bench spark-versions [--versions LIST] [--json]

      bench spark-versions: one small differential PySpark job (stock fetch and ours in one
      application, results and the agents' counters checked) through the real spark-submit of
      pyspark 3.5.9, 4.0.5, 4.1.4, 4.2.1 and 4.3.0 with our jar for each line; one row per
      version. See 'coflow bench spark-versions --help'.

      bench sim: replays the whole trace (or its first N coflows) under every policy and prints each
      run's table followed by a summary: average and p95 CCT normalised to fair sharing
      and to the isolated lower bound, the speedup over fair sharing, and each run's wall
      time against the goal of 10 s per policy on a 2-core machine.
        --courier   also run every policy wrapped with Courier merging (many more events:
                    flows beyond MaxNum peers wait; slow on the whole trace)
        --slice N   then run every policy again on the first N coflows only (default 200,
                    0 = no slice), the slice the public reference simulator coflowsim was
                    timed on (FAIR 218 s, DARK 132 s, SEBF 247 s on a 2-core machine like
                    this one): fair, aalo and varys print their speed against those times.
        --model M   the reference simulator's modelling choices, as for coflow sim
      With --json, one object per run and line, "run" being "trace" or "slice", each with
      wall_s and events.
      """;

  /** coflowsim's wall times on the first 200 coflows of the Facebook trace, by policy. */
  static final Map<String, Double> REFERENCE_WALL_200 =
      Map.of("fair", 218.0, "aalo", 132.0, "varys", 247.0);

  static final int REFERENCE_SLICE = 200;

  static final double WALL_GOAL_SECONDS = 10;

  private BenchCommand() {}

  static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    if (argv.length == 0 || argv[0].equals("--help")) {
      out.print(HELP);
      return argv.length == 0 ? 2 : 0;
    }
    String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
    if (argv[0].equals("master")) {
      return LoadCommand.run(rest, out, err);
    }
    if (argv[0].equals("agent")) {
      return AgentBenchCommand.run(rest, out, err);
    }
    if (argv[0].equals("tpcds")) {
      return TpcdsBenchCommand.run(rest, home, out, err);
    }
    if (argv[0].equals("swim")) {
      return SwimBenchCommand.run(rest, home, out, err);
    }
    if (argv[0].equals("identify")) {
      return IdentifyBenchCommand.run(rest, home, out, err);
    }
    if (argv[0].equals("fuzz")) {
      return FuzzBenchCommand.run(rest, out, err);
    }
    if (argv[0].equals("load")) {
      return AgentLoadCommand.run(rest, out, err);
    }
    if (argv[0].equals("coda-agent")) {
      return CodaAgentBenchCommand.run(rest, home, out, err);
    }
    if (argv[0].equals("spark-versions")) {
      return SparkVersionsBenchCommand.run(rest, home, out, err);
    }
    if (argv[0].equals("testbed")) {
      return TestbedBenchCommand.run(rest, home, out, err);
    }
    if (argv[0].equals("spark-testbed")) {
      return SparkTestbedBenchCommand.run(rest, home, out, err);
    }
    if (!argv[0].equals("sim")) {
      throw new UsageException(
          "coflow bench: unknown benchmark '"
              + argv[0]
              + "'; benchmarks: sim, master, agent, tpcds, swim, identify, fuzz, load, coda-agent,"
              + " spark-versions, testbed, spark-testbed");
    }
    Args a =
        Args.parse(
            "coflow bench sim",
            rest,
            Set.of(
                "trace",
                "policy",
                "bandwidth",
                "config",
                "conf",
                "coalesce",
                "coflows",
                "slice",
                "model"),
            Set.of("json", "help", "courier"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    SimCommand.Options o = SimCommand.Options.from(a, home);
    // One run at a time: wall_s is the figure this benchmark exists for, and runs side by side
    // would share the cores and the memory bus.
    o.threads = 1;
    int slice = sliceOption(a);
    PrintStream table = o.json ? null : out;
    boolean withCourier = o.courier;
    o.courier = false;
    List<SimResult> plain = SimCommand.simulate(o, err, table);
    o.courier = true;
    List<SimResult> wrapped = withCourier ? SimCommand.simulate(o, err, table) : List.of();
    List<RunSummary> all = new ArrayList<>();
    SimResult fair = plain.get(0);
    for (SimResult r : plain) {
      all.add(RunSummary.of(r, fair));
    }
    for (SimResult r : wrapped.isEmpty() ? wrapped : wrapped.subList(1, wrapped.size())) {
      all.add(RunSummary.of(r, fair));
    }
    List<RunSummary> sliced = new ArrayList<>();
    if (slice > 0 && slice < o.trace.coflows().size()) {
      o.courier = false;
      o.trace = o.trace.first(slice);
      if (table != null) {
        table.printf(Locale.ROOT, "%nThe same policies on the first %d coflows:%n", slice);
      }
      List<SimResult> slicedRuns = SimCommand.simulate(o, err, table);
      for (SimResult r : slicedRuns) {
        sliced.add(RunSummary.of(r, slicedRuns.get(0)));
      }
    }
    if (o.json) {
      for (RunSummary s : all) {
        out.println(
            Reports.json(s, o.bandwidthText).put("run", "trace").put("model", o.model.label()));
      }
      for (RunSummary s : sliced) {
        Json j = Reports.json(s, o.bandwidthText).put("run", "slice").put("model", o.model.label());
        Double ref = referenceWall(s, slice, o);
        if (ref != null) {
          j.put("reference_wall_s", ref).put("speed_vs_reference", ref / s.run().wallSeconds());
        }
        out.println(j);
      }
      return 0;
    }
    out.printf(
        Locale.ROOT,
        "%nSummary (%s, %d coflows, %sbit/s ports; speedup = fair/policy)%n",
        o.trace.source(),
        o.trace.coflows().size(),
        o.bandwidthText);
    out.printf(
        Locale.ROOT,
        "  %-20s %9s %9s %9s %9s %8s %8s %8s %s%n",
        "run",
        "avg_s",
        "p95_s",
        "avg/fair",
        "p95/fair",
        "speedup",
        "avg/LB",
        "wall_s",
        "goal");
    for (RunSummary s : all) {
      Stats c = s.overall();
      double wall = s.run().wallSeconds();
      out.printf(
          Locale.ROOT,
          "  %-20s %9.3f %9.3f %9.3f %9.3f %8.2f %8.2f %8.2f %s%n",
          s.run().label(),
          c.avg(),
          c.p95(),
          s.vsBaseline(Bin.ALL, Stats::avg),
          s.vsBaseline(Bin.ALL, Stats::p95),
          1 / s.vsBaseline(Bin.ALL, Stats::avg),
          s.vsLowerBound(Bin.ALL, Stats::avg),
          wall,
          wall <= WALL_GOAL_SECONDS ? "ok" : "over 10s");
    }
    if (!sliced.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "%nFirst %d coflows: wall time against the reference simulator coflowsim%n",
          slice);
      out.printf(
          Locale.ROOT,
          "  %-12s %9s %9s %12s %10s%n",
          "run",
          "events",
          "wall_s",
          "coflowsim_s",
          "speed");
      for (RunSummary s : sliced) {
        Double ref = referenceWall(s, slice, o);
        out.printf(
            Locale.ROOT,
            "  %-12s %9d %9.2f %12s %10s%n",
            s.run().label(),
            s.run().events(),
            s.run().wallSeconds(),
            ref == null ? "-" : String.format(Locale.ROOT, "%.0f", ref),
            ref == null ? "-" : String.format(Locale.ROOT, "%.0fx", ref / s.run().wallSeconds()));
      }
    }
    return 0;
  }

  /**
   * coflowsim's time for the same policy on the same slice of the shipped trace, or null if none
   * was measured (another trace, slice or model).
   */
  private static Double referenceWall(RunSummary s, int slice, SimCommand.Options o) {
    return slice == REFERENCE_SLICE && !s.run().courier() && o.defaultTrace && o.model.isDefault()
        ? REFERENCE_WALL_200.get(s.run().policy())
        : null;
  }

  private static int sliceOption(Args a) throws UsageException {
    String v = a.get("slice", String.valueOf(REFERENCE_SLICE));
    try {
      int n = Integer.parseInt(v);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException(
          "coflow bench sim: --slice must be a whole number of coflows (0 = none), got '"
              + v
              + "'");
    }
  }
}
