package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import org.coflow.core.config.UsageException;
import org.coflow.sim.cli.IdentifyBenchCommand;
import org.coflow.sim.cli.SimBenchCommand;
import org.coflow.stress.cli.AgentLoadCommand;
import org.coflow.stress.cli.FuzzBenchCommand;
import org.coflow.stress.cli.LoadCommand;
import org.coflow.testbed.cli.TestbedBenchCommand;

/** {@code bin/coflow bench ...}: benchmarks that take minutes, never part of the default tests. */
final class BenchCommand {
  static final String HELP =
      """
      Usage: coflow bench BENCHMARK [options]   (coflow bench BENCHMARK --help: its options)

             coflow bench master [--flows N] [--agents LIST] [--policy NAME] [--json] ...

      bench master: a real master against simulated agents over gRPC on loopback: decision and
      round times, and whether it kept up. See 'coflow bench master --help'.

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

      bench fuzz: a seeded fuzz of a real agent's handshake and frame decoder on loopback. See
      'coflow bench fuzz --help'.

             coflow bench load [--streams N] [--idle N] [--direct-memory BYTES] [--json] ...

      bench load: one agent with a capped direct memory under hostile idle connections while
      clients with the secret stream blocks. See 'coflow bench load --help'.

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

             coflow bench sim [--trace FILE] [--policy LIST] [--courier] [--slice N] [--json] ...

      bench sim: the simulator's speed on the whole trace under every policy, and against the
      reference simulator coflowsim on its first 200 coflows. See 'coflow bench sim --help'.
      """;

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
    if (argv[0].equals("sim")) {
      return SimBenchCommand.run(rest, home, out, err);
    }
    throw new UsageException(
        "coflow bench: unknown benchmark '"
            + argv[0]
            + "'; benchmarks: sim, master, agent, tpcds, swim, identify, fuzz, load, coda-agent,"
            + " spark-versions, testbed, spark-testbed");
  }
}
