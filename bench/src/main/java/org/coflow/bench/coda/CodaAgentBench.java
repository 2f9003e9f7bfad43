package org.coflow.bench.coda;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.coflow.core.config.Config;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterSnapshot;

/**
 * What the coda-agent costs a JVM that saturates its link (CODA §5.2: about 1% more CPU, the same
 * throughput, with more than 100 flows). A real master runs in this process; each round starts the
 * {@link LoopbackLoad} child twice, back to back, once plain and once with {@code
 * -javaagent:coda-agent.jar=master=127.0.0.1:PORT,hostId=bench-host}, in alternating order (plain
 * first in odd rounds, the agent first in even ones), and compares the bytes each moved and the CPU
 * each used per byte in its measured window. An agent run counts only if its child said that the
 * agent started and reached the master, and the master saw at least one flow per connection from
 * it.
 *
 * <p>The master declares every host {@value #CAPACITY_TEXT} (CODA's saturated NIC: the master's
 * rates add up to what the link carries), so the pace it sets never binds on loopback, and the
 * agent's whole per-write path (counting, flow splitting, token buckets) runs without lowering the
 * rate.
 */
public final class CodaAgentBench {
  /** The agent jar, relative to the project's home. */
  public static final String JAR = "coda-agent/agent/target/coda-agent.jar";

  /** How to build {@link #JAR}. */
  public static final String BUILD =
      "mvn -q package -pl coda-agent/bootstrap,coda-agent/agent -DskipTests";

  /** Default warm-up of each load JVM before its measured window. */
  public static final int WARMUP_SECONDS = 1;

  /** Goals (CODA §5.2): throughput with/without at least this, CPU per byte at most 1% more. */
  public static final double THROUGHPUT_GOAL = 0.99;

  public static final double CPU_OVERHEAD_GOAL = 0.01;

  static final String HOST_ID = "bench-host";

  /** Each host's capacity at the master: 1 Tbit/s, far above loopback's. */
  public static final double CAPACITY_BYTES_PER_SECOND = 1e12 / 8;

  public static final String CAPACITY_TEXT = "1 Tbit/s";

  private static final String STARTED = "[coda-agent] started:";
  private static final String REPORTING = "[coda-agent] reporting to master";

  /** One child run, its measured window. */
  public record Run(
      boolean agent,
      long bytes,
      double seconds,
      double cpuSeconds,
      double jitCpuSeconds,
      double agentThreadCpuSeconds,
      double parentCpuSeconds,
      int masterFlows,
      double minFlowRate) {
    public double gbPerSecond() {
      return bytes / seconds / 1e9;
    }

    /** Process CPU seconds per GB (10^9 bytes) moved. */
    public double cpuPerGb() {
      return cpuSeconds / (bytes / 1e9);
    }

    /** The same, the JIT compilers' CPU left out. */
    public double cpuPerGbWithoutJit() {
      return (cpuSeconds - jitCpuSeconds) / (bytes / 1e9);
    }
  }

  /** Two runs back to back. */
  public record Round(int number, boolean agentFirst, Run plain, Run agent) {
    public String order() {
      return agentFirst ? "agent,plain" : "plain,agent";
    }

    public double throughputRatio() {
      return agent.gbPerSecond() / plain.gbPerSecond();
    }

    public double cpuOverhead() {
      return agent.cpuPerGb() / plain.cpuPerGb() - 1;
    }

    public double cpuOverheadWithoutJit() {
      return agent.cpuPerGbWithoutJit() / plain.cpuPerGbWithoutJit() - 1;
    }
  }

  /** Every round, and the medians of their ratios. */
  public record Result(
      int connections, int seconds, int warmupSeconds, String agentArgs, List<Round> rounds) {
    /** Median over the rounds of throughput with the agent over throughput without. */
    public double throughputRatio() {
      return median(Round::throughputRatio);
    }

    /** Median over the rounds of (CPU per byte with the agent / CPU per byte without) - 1. */
    public double cpuOverhead() {
      return median(Round::cpuOverhead);
    }

    public double cpuOverheadWithoutJit() {
      return median(Round::cpuOverheadWithoutJit);
    }

    /**
     * Best run against best run: the fastest run with the agent over the fastest without. On a
     * machine whose loopback throughput jumps between two levels whatever runs (this project's
     * two-core machines do), the best runs compare like with like.
     */
    public double bestThroughputRatio() {
      return rounds.stream().mapToDouble(r -> r.agent().gbPerSecond()).max().orElse(Double.NaN)
          / rounds.stream().mapToDouble(r -> r.plain().gbPerSecond()).max().orElse(Double.NaN);
    }

    /** The least CPU per byte with the agent over the least without, less 1. */
    public double bestCpuOverhead() {
      return rounds.stream().mapToDouble(r -> r.agent().cpuPerGb()).min().orElse(Double.NaN)
              / rounds.stream().mapToDouble(r -> r.plain().cpuPerGb()).min().orElse(Double.NaN)
          - 1;
    }

    public boolean throughputMet() {
      return throughputRatio() >= THROUGHPUT_GOAL;
    }

    public boolean cpuMet() {
      return cpuOverhead() <= CPU_OVERHEAD_GOAL;
    }

    /** Median over the rounds of a figure of one round. */
    public double median(ToDoubleFunction<Round> f) {
      double[] v = rounds.stream().mapToDouble(f).sorted().toArray();
      int n = v.length;
      return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
  }

  private final Path jar;
  private final int connections;
  private final int seconds;
  private final int rounds;
  private final int warmup;

  public CodaAgentBench(Path jar, int connections, int seconds, int rounds, int warmup) {
    if (connections < 1 || seconds < 1 || rounds < 1 || warmup < 0) {
      throw new IllegalArgumentException(
          "connections, seconds and rounds must be positive, warm-up not negative");
    }
    this.jar = jar.toAbsolutePath().normalize();
    this.connections = connections;
    this.seconds = seconds;
    this.rounds = rounds;
    this.warmup = warmup;
  }

  /**
   * The agent jar under {@code home}.
   *
   * @throws NoSuchFileException naming the path and how to build it, if it is missing
   */
  public static Path agentJar(Path home) throws NoSuchFileException {
    Path p = home.resolve(JAR).toAbsolutePath().normalize();
    if (!Files.isRegularFile(p)) {
      throw new NoSuchFileException(
          p.toString(), null, "the coda-agent jar is not built; build it with '" + BUILD + "'");
    }
    return p;
  }

  /**
   * Runs every round against a master of its own.
   *
   * @param progress where each run is announced, or null
   * @throws IllegalStateException if a child failed, or the agent did not start, reach the master
   *     or report its flows (the message says which, with the child's output)
   */
  public Result run(PrintStream progress) throws Exception {
    Config config =
        Config.defaults()
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.POLICY, "fair")
            .with(MasterConfig.DEFAULT_CAPACITY, CAPACITY_BYTES_PER_SECOND);
    Path dir = Files.createTempDirectory("coflow-bench-coda");
    try (MasterServer master = MasterServer.start(config, null)) {
      String agentArgs = "master=127.0.0.1:" + master.port() + ",hostId=" + HOST_ID;
      List<Round> done = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        boolean agentFirst = r % 2 == 0;
        Run first = run(master, agentFirst ? agentArgs : null, dir, progress, r);
        Run second = run(master, agentFirst ? null : agentArgs, dir, progress, r);
        done.add(
            new Round(r, agentFirst, agentFirst ? second : first, agentFirst ? first : second));
      }
      return new Result(connections, seconds, warmup, agentArgs, List.copyOf(done));
    } finally {
      try (var files = Files.list(dir)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  /** One child, with the agent when {@code agentArgs} is not null. */
  private Run run(MasterServer master, String agentArgs, Path dir, PrintStream progress, int round)
      throws Exception {
    boolean agent = agentArgs != null;
    if (progress != null) {
      progress.printf(
          Locale.ROOT,
          "round %d/%d: %s, %d connections, %d s after %d s warm-up...%n",
          round,
          rounds,
          agent ? "with the agent" : "without the agent",
          connections,
          seconds,
          warmup);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    if (agent) {
      cmd.add("-javaagent:" + jar + "=" + agentArgs);
    }
    cmd.addAll(
        List.of(
            "-cp",
            classPath(),
            LoopbackLoad.class.getName(),
            Integer.toString(connections),
            Integer.toString(seconds),
            Integer.toString(warmup)));
    Path out = dir.resolve("child-" + round + (agent ? "-agent" : "-plain") + ".out");
    Path err = dir.resolve("child-" + round + (agent ? "-agent" : "-plain") + ".err");
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long parentCpu0 = os.getProcessCpuTime();
    Process p =
        new ProcessBuilder(cmd)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    p.getOutputStream().close();
    String pid = Long.toString(p.pid());
    long limit = seconds + warmup + 60L;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limit);
    int flows = 0;
    double minRate = Double.POSITIVE_INFINITY;
    // Both kinds of run watch the master alike, so that this process does the same work in each.
    while (!p.waitFor(100, TimeUnit.MILLISECONDS)) {
      if (System.nanoTime() > deadline) {
        p.destroyForcibly().waitFor();
        throw new IllegalStateException(
            "the load JVM did not finish within " + (seconds + 60) + " s" + childOutput(out, err));
      }
      MasterSnapshot s = master.service().snapshot(Integer.MAX_VALUE);
      for (MasterSnapshot.Agent a : s.agents()) {
        if (pid.equals(a.labels().get("pid"))) {
          flows = Math.max(flows, a.flows());
        }
      }
      for (MasterSnapshot.CoflowView c : s.coflows()) {
        for (MasterSnapshot.FlowView f : c.flows()) {
          if (f.rate() > 0) {
            minRate = Math.min(minRate, f.rate());
          }
        }
      }
    }
    double parentCpu = (os.getProcessCpuTime() - parentCpu0) / 1e9;
    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          "the load JVM exited with " + p.exitValue() + childOutput(out, err));
    }
    Map<String, Long> f = parse(stdout);
    if (f == null) {
      throw new IllegalStateException(
          "the load JVM printed no '" + LoopbackLoad.PREFIX + "' line" + childOutput(out, err));
    }
    if (agent) {
      if (!stderr.contains(STARTED) || !stderr.contains(REPORTING)) {
        throw new IllegalStateException(
            "the coda-agent did not "
                + (stderr.contains(STARTED) ? "reach the master" : "start")
                + " in the load JVM (no '"
                + (stderr.contains(STARTED) ? REPORTING : STARTED)
                + "' line on its standard error)"
                + childOutput(out, err));
      }
      if (flows < connections) {
        throw new IllegalStateException(
            "the master saw at most "
                + flows
                + " flows from the agent of the load JVM (pid "
                + pid
                + "), not one per connection ("
                + connections
                + ")"
                + childOutput(out, err));
      }
    } else if (stderr.contains("[coda-agent]")) {
      throw new IllegalStateException(
          "the coda-agent ran in the plain load JVM" + childOutput(out, err));
    }
    if (f.get("bytes") <= 0) {
      throw new IllegalStateException("the load JVM moved no bytes" + childOutput(out, err));
    }
    return new Run(
        agent,
        f.get("bytes"),
        f.get("nanos") / 1e9,
        f.get("cpu_ns") / 1e9,
        f.get("jit_cpu_ns") / 1e9,
        f.get("agent_thread_cpu_ns") / 1e9,
        parentCpu,
        flows,
        minRate == Double.POSITIVE_INFINITY ? Double.NaN : minRate);
  }

  /** The fields of the result line, or null without one. */
  static Map<String, Long> parse(String stdout) {
    for (String line : stdout.split("\n")) {
      if (!line.startsWith(LoopbackLoad.PREFIX)) {
        continue;
      }
      Map<String, Long> fields = new HashMap<>();
      for (String kv : line.substring(LoopbackLoad.PREFIX.length()).trim().split(" ")) {
        int eq = kv.indexOf('=');
        if (eq > 0) {
          fields.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
      }
      for (String k :
          Arrays.asList("bytes", "nanos", "cpu_ns", "jit_cpu_ns", "agent_thread_cpu_ns")) {
        if (!fields.containsKey(k)) {
          return null;
        }
      }
      return fields;
    }
    return null;
  }

  /** Where {@link LoopbackLoad} is: the bench jar or classes directory, and nothing else. */
  private static String classPath() throws URISyntaxException {
    return Path.of(LoopbackLoad.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .toString();
  }

  private static String childOutput(Path out, Path err) throws IOException {
    return "; its standard output:\n"
        + tail(Files.readString(out, StandardCharsets.UTF_8))
        + "\nits standard error:\n"
        + tail(Files.readString(err, StandardCharsets.UTF_8));
  }

  private static String tail(String s) {
    return s.length() <= 4000 ? s : "..." + s.substring(s.length() - 4000);
  }
}
