package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.coflow.bench.agentbench.AgentBench;
import org.coflow.core.config.Args;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.sim.report.Json;

/** {@code bin/coflow bench agent}: Courier agents against a direct zero-copy fetch. */
final class AgentBenchCommand {
  private AgentBenchCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench agent",
            argv,
            Set.of("size", "blocks", "clients", "runs", "max-num"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(BenchCommand.HELP);
      return 0;
    }
    long size;
    try {
      size = Units.parseBytes(a.get("size", "512m"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench agent: --size: " + e.getMessage());
    }
    int blocks = positive(a, "blocks", "32");
    int clients = positive(a, "clients", "4");
    int runs = positive(a, "runs", "5");
    int maxNum = positive(a, "max-num", "8");
    Path dir = Files.createTempDirectory("coflow-bench-agent");
    AgentBench.Result r;
    try {
      r = new AgentBench(size, blocks, clients, runs, maxNum, dir).run();
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench agent: " + e.getMessage());
    } catch (Exception e) {
      err.println("coflow bench agent: the run failed: " + e);
      return 1;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    if (a.has("json")) {
      out.println(
          new Json()
              .put("bytes", r.bytes())
              .put("blocks", r.blocks())
              .put("clients", r.clients())
              .put("runs", r.runs())
              .put("max_num", r.maxNum())
              .put("courier_seconds", r.courierSeconds())
              .put("baseline_seconds", r.baselineSeconds())
              .put("courier_gb_per_s", r.courierGbPerSecond())
              .put("baseline_gb_per_s", r.baselineGbPerSecond())
              .put("throughput_ratio", r.throughputRatio())
              .put("courier_cpu_seconds", r.courierCpuSeconds())
              .put("baseline_cpu_seconds", r.baselineCpuSeconds())
              .put("courier_jit_cpu_seconds", r.courierJitSeconds())
              .put("baseline_jit_cpu_seconds", r.baselineJitSeconds())
              .put("warmup_rounds", r.warmupRounds())
              .put("cpu_per_gb_ratio", r.cpuPerGbRatio())
              .put("cpu_per_gb_ratio_with_jit", r.cpuPerGbRatioWithJit())
              .put("throughput_ratio_of_medians", r.throughputRatioOfMedians())
              .put("cpu_per_gb_ratio_of_medians", r.cpuPerGbRatioOfMedians()));
    } else {
      out.printf(
          Locale.ROOT,
          "%d blocks, %d bytes, %d clients, median of %d runs after %d warm-up rounds%n",
          r.blocks(),
          r.bytes(),
          r.clients(),
          r.runs(),
          r.warmupRounds());
      out.printf(
          Locale.ROOT,
          "  courier:  %.3f GB/s, %.2f CPU s (of which JIT %.2f)%n",
          r.courierGbPerSecond(),
          r.courierCpuSeconds(),
          r.courierJitSeconds());
      out.printf(
          Locale.ROOT,
          "  baseline: %.3f GB/s, %.2f CPU s (of which JIT %.2f)%n",
          r.baselineGbPerSecond(),
          r.baselineCpuSeconds(),
          r.baselineJitSeconds());
      out.printf(
          Locale.ROOT,
          "  throughput_ratio %.3f (goal >= 1.00), cpu_per_gb_ratio %.3f (goal <= 1.05;"
              + " %.3f with JIT), medians of the rounds' ratios%n",
          r.throughputRatio(),
          r.cpuPerGbRatio(),
          r.cpuPerGbRatioWithJit());
      out.printf(
          Locale.ROOT,
          "  ratios of the medians: throughput %.3f, CPU per GB %.3f%n",
          r.throughputRatioOfMedians(),
          r.cpuPerGbRatioOfMedians());
    }
    return 0;
  }

  private static int positive(Args a, String name, String fallback) throws UsageException {
    String text = a.get(name, fallback);
    try {
      int v = Integer.parseInt(text);
      if (v > 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        "coflow bench agent: --" + name + " must be a positive integer, got '" + text + "'");
  }
}
