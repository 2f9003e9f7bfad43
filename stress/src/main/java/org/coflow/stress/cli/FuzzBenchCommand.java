package org.coflow.stress.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.coflow.core.config.Args;
import org.coflow.core.config.UsageException;
import org.coflow.sim.report.Json;
import org.coflow.stress.fuzz.AgentFuzz;

/** {@code bin/coflow bench fuzz}: the agent's handshake and frame decoder under a seeded fuzz. */
public final class FuzzBenchCommand {
  static final String HELP =
      """
      Usage: coflow bench fuzz [--inputs N] [--seed S] [--check-every K] [--json]

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
      """;

  private FuzzBenchCommand() {}

  public static int run(String[] argv, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench fuzz",
            argv,
            Set.of("inputs", "seed", "check-every"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    long inputs = number(a, "inputs", "1000000", 1);
    long seed = number(a, "seed", "1", Long.MIN_VALUE);
    long checkEvery = number(a, "check-every", "10000", 1);
    boolean json = a.has("json");
    // Every refused input is a warning of the agent's; a million of them say nothing here.
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.courier", "error");
    Path dir = Files.createTempDirectory("coflow-bench-fuzz");
    AgentFuzz.Result r;
    try {
      r = new AgentFuzz(inputs, seed).checkEvery(checkEvery).run(dir, json ? null : err);
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench fuzz: " + e.getMessage());
    } catch (Exception e) {
      err.println("coflow bench fuzz: the run failed: " + e);
      return 1;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    if (json) {
      Json outcomes = new Json();
      r.outcomes().forEach(outcomes::put);
      Json kinds = new Json();
      r.kinds().forEach(kinds::put);
      out.println(
          new Json()
              .put("inputs", r.inputs())
              .put("seed", r.seed())
              .put("seconds", r.seconds())
              .put("inputs_per_second", r.inputsPerSecond())
              .put("outcomes", outcomes)
              .put("kinds", kinds)
              .put("havoc_mutated", r.havoc())
              .put("challenges", r.challenges())
              .put("peak_buffered_bytes", r.peakBuffered())
              .put("buffered_cap_bytes", r.bufferCap())
              .put("agent_refused_connections", r.agentRefused())
              .put("good_checks", r.goodChecks())
              .put("good_checks_passed", r.goodChecksPassed())
              .put("failure_count", r.failureCount())
              .put("failures", r.failures())
              .put("ok", r.ok()));
    } else {
      out.printf(
          Locale.ROOT,
          "%d inputs (seed %d) in %.1f s: %.0f inputs/s%n",
          r.inputs(),
          r.seed(),
          r.seconds(),
          r.inputsPerSecond());
      out.println("  outcomes:");
      print(out, r.outcomes(), r.inputs());
      out.println("  inputs by family:");
      print(out, r.kinds(), r.inputs());
      out.printf(
          Locale.ROOT,
          "  mutated byte by byte: %d; challenged: %d (none admitted)%n",
          r.havoc(),
          r.challenges());
      out.printf(
          Locale.ROOT,
          "  peak buffered bytes: %d of a cap of %d; connections refused at a bound: %d%n",
          r.peakBuffered(),
          r.bufferCap(),
          r.agentRefused());
      out.printf(
          Locale.ROOT,
          "  good-client checks passed: %d/%d%n",
          r.goodChecksPassed(),
          r.goodChecks());
      out.printf(Locale.ROOT, "  failures: %d%n", r.failureCount());
      for (String f : r.failures()) {
        out.println("    " + f);
      }
      out.println(r.ok() ? "OK" : "FAILED");
    }
    return r.ok() ? 0 : 1;
  }

  private static void print(PrintStream out, Map<String, Long> counts, long total) {
    counts.forEach(
        (k, v) -> out.printf(Locale.ROOT, "    %-28s %10d  %5.1f%%%n", k, v, 100.0 * v / total));
  }

  private static long number(Args a, String name, String fallback, long min) throws UsageException {
    String text = a.get(name, fallback);
    try {
      long v = Long.parseLong(text.replace("_", ""));
      if (v >= min) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        "coflow bench fuzz: --"
            + name
            + (min > 0 ? " must be an integer of at least " + min : " must be an integer")
            + ", got '"
            + text
            + "'");
  }
}
