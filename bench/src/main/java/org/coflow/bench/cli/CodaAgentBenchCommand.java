package org.coflow.bench.cli;

import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.coflow.bench.coda.CodaAgentBench;
import org.coflow.bench.coda.CodaAgentBench.Round;
import org.coflow.core.config.Args;
import org.coflow.core.config.UsageException;
import org.coflow.core.json.JsonWriter;

/**
 * {@code bin/coflow bench coda-agent}: what the coda-agent costs a JVM that keeps many loopback
 * connections full (CODA §5.2). Public, with {@link #run}, for the smoke test in {@code
 * org.coflow.bench.coda}.
 */
public final class CodaAgentBenchCommand {
  /** The master's gRPC says at INFO whether epoll is there: not this benchmark's business. */
  private static final Logger GRPC_LOG = Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty");

  private CodaAgentBenchCommand() {}

  /** Runs the benchmark; {@code home} is the project directory, where the agent jar is built. */
  public static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException {
    Args a =
        Args.parse(
            "coflow bench coda-agent",
            argv,
            Set.of("connections", "seconds", "rounds", "warmup"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(BenchCommand.HELP);
      return 0;
    }
    int connections = positive(a, "connections", "128", 4096);
    int seconds = positive(a, "seconds", "5", 3600);
    int rounds = positive(a, "rounds", "3", 1000);
    int warmup = positive(a, "warmup", Integer.toString(CodaAgentBench.WARMUP_SECONDS), 3600);
    boolean json = a.has("json");
    Path jar;
    try {
      jar = CodaAgentBench.agentJar(home);
    } catch (NoSuchFileException e) {
      err.println(
          "coflow bench coda-agent: no agent jar at "
              + e.getFile()
              + ": build it with '"
              + CodaAgentBench.BUILD
              + "' (in "
              + home.toAbsolutePath().normalize()
              + ")");
      return 1;
    }
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.master", "error");
    GRPC_LOG.setLevel(Level.WARNING);
    CodaAgentBench.Result r;
    try {
      r = new CodaAgentBench(jar, connections, seconds, rounds, warmup).run(json ? null : err);
    } catch (Exception e) {
      err.println("coflow bench coda-agent: the run failed: " + e.getMessage());
      return 1;
    }
    if (json) {
      out.println(json(r));
      return 0;
    }
    out.printf(
        Locale.ROOT,
        "coda-agent overhead: %d loopback connections, one writer and one reader selector thread,"
            + " %d s measured after %d s warm-up, %d rounds (order alternates)%n",
        r.connections(),
        r.seconds(),
        r.warmupSeconds(),
        r.rounds().size());
    out.printf(
        Locale.ROOT,
        "with: -javaagent:%s=%s (master in this process: fair, hosts of %s, so its pace never"
            + " binds)%n",
        CodaAgentBench.JAR,
        r.agentArgs(),
        CodaAgentBench.CAPACITY_TEXT);
    out.printf(
        Locale.ROOT,
        "  %-5s %-11s %8s %8s %7s %9s %9s %8s %6s %8s %8s%n",
        "round",
        "order",
        "GB/s w/o",
        "GB/s w/",
        "ratio",
        "CPUs/GB-",
        "CPUs/GB+",
        "overhead",
        "flows",
        "agent-th",
        "master");
    for (Round x : r.rounds()) {
      out.printf(
          Locale.ROOT,
          "  %-5d %-11s %8.3f %8.3f %7.4f %9.4f %9.4f %+7.2f%% %6d %7.3fs %7.3fs%n",
          x.number(),
          x.order(),
          x.plain().gbPerSecond(),
          x.agent().gbPerSecond(),
          x.throughputRatio(),
          x.plain().cpuPerGb(),
          x.agent().cpuPerGb(),
          100 * x.cpuOverhead(),
          x.agent().masterFlows(),
          x.agent().agentThreadCpuSeconds(),
          x.agent().parentCpuSeconds());
    }
    out.print(
        """
          (CPUs/GB-/+: process CPU seconds per GB without/with the agent; flows: most flows the
          master held from the agent's JVM; agent-th: CPU of the agent's own threads in the window;
          master: CPU of this process, the master's, over the agent JVM's whole life)
        """);
    out.printf(
        Locale.ROOT,
        "  JIT compiler CPU in the window (medians): %.3f s without, %.3f s with the agent;"
            + " cpu_overhead without it %+.2f%%%n",
        r.median(x -> x.plain().jitCpuSeconds()),
        r.median(x -> x.agent().jitCpuSeconds()),
        100 * r.cpuOverheadWithoutJit());
    out.printf(
        Locale.ROOT,
        "throughput_ratio %.4f (goal >= %.2f): %s%n",
        r.throughputRatio(),
        CodaAgentBench.THROUGHPUT_GOAL,
        r.throughputMet() ? "met" : "NOT met");
    out.printf(
        Locale.ROOT,
        "cpu_overhead %+.2f%% (goal <= %+.0f%%): %s%n",
        100 * r.cpuOverhead(),
        100 * CodaAgentBench.CPU_OVERHEAD_GOAL,
        r.cpuMet() ? "met" : "NOT met");
    out.println("  (medians over the rounds of each round's with/without ratio)");
    out.printf(
        Locale.ROOT,
        "best runs: throughput_ratio_best %.4f, cpu_overhead_best %+.2f%%"
            + " (fastest with / fastest without; least CPU per GB with / without)%n",
        r.bestThroughputRatio(),
        100 * r.bestCpuOverhead());
    return 0;
  }

  static String json(CodaAgentBench.Result r) {
    StringBuilder sb = new StringBuilder();
    JsonWriter w = new JsonWriter(sb).beginObject();
    w.name("connections").value(r.connections());
    w.name("seconds").value(r.seconds());
    w.name("warmup_seconds").value(r.warmupSeconds());
    w.name("rounds").value(r.rounds().size());
    w.name("agent_args").value(r.agentArgs());
    w.name("master_host_capacity_bytes_per_s").value(CodaAgentBench.CAPACITY_BYTES_PER_SECOND);
    w.name("throughput_ratio").value(round(r.throughputRatio()));
    w.name("throughput_ratio_goal").value(CodaAgentBench.THROUGHPUT_GOAL);
    w.name("throughput_ratio_met").value(r.throughputMet());
    w.name("cpu_overhead").value(round(r.cpuOverhead()));
    w.name("cpu_overhead_goal").value(CodaAgentBench.CPU_OVERHEAD_GOAL);
    w.name("cpu_overhead_met").value(r.cpuMet());
    w.name("cpu_overhead_without_jit").value(round(r.cpuOverheadWithoutJit()));
    w.name("throughput_ratio_best").value(round(r.bestThroughputRatio()));
    w.name("cpu_overhead_best").value(round(r.bestCpuOverhead()));
    w.name("order").beginArray();
    for (Round x : r.rounds()) {
      w.value(x.order());
    }
    w.endArray();
    array(w, r.rounds(), "throughput_without_gb_per_s", x -> x.plain().gbPerSecond());
    array(w, r.rounds(), "throughput_with_gb_per_s", x -> x.agent().gbPerSecond());
    array(w, r.rounds(), "cpu_s_per_gb_without", x -> x.plain().cpuPerGb());
    array(w, r.rounds(), "cpu_s_per_gb_with", x -> x.agent().cpuPerGb());
    array(w, r.rounds(), "throughput_ratios", Round::throughputRatio);
    array(w, r.rounds(), "cpu_overheads", Round::cpuOverhead);
    array(w, r.rounds(), "bytes_without", x -> x.plain().bytes());
    array(w, r.rounds(), "bytes_with", x -> x.agent().bytes());
    array(w, r.rounds(), "cpu_s_without", x -> x.plain().cpuSeconds());
    array(w, r.rounds(), "cpu_s_with", x -> x.agent().cpuSeconds());
    array(w, r.rounds(), "jit_cpu_s_without", x -> x.plain().jitCpuSeconds());
    array(w, r.rounds(), "jit_cpu_s_with", x -> x.agent().jitCpuSeconds());
    array(w, r.rounds(), "agent_thread_cpu_s", x -> x.agent().agentThreadCpuSeconds());
    array(w, r.rounds(), "master_process_cpu_s_without", x -> x.plain().parentCpuSeconds());
    array(w, r.rounds(), "master_process_cpu_s_with", x -> x.agent().parentCpuSeconds());
    array(w, r.rounds(), "master_flows_seen", x -> x.agent().masterFlows());
    array(w, r.rounds(), "master_min_flow_rate_bytes_per_s", x -> x.agent().minFlowRate());
    w.endObject();
    return sb.toString();
  }

  private static void array(
      JsonWriter w, List<Round> rounds, String name, ToDoubleFunction<Round> f) {
    w.name(name).beginArray();
    for (Round x : rounds) {
      w.value(round(f.applyAsDouble(x)));
    }
    w.endArray();
  }

  /** Seven significant digits, as the other reports print. */
  private static double round(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
      return v;
    }
    return new java.math.BigDecimal(v).round(new java.math.MathContext(7)).doubleValue();
  }

  private static int positive(Args a, String name, String fallback, int max) throws UsageException {
    String text = a.get(name, fallback);
    try {
      int v = Integer.parseInt(text);
      if (v > 0 && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        "coflow bench coda-agent: --"
            + name
            + " must be an integer from 1 to "
            + max
            + ", got '"
            + text
            + "'");
  }
}
