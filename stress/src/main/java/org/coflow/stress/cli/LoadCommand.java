package org.coflow.stress.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.coflow.core.config.Args;
import org.coflow.core.config.ConfigType;
import org.coflow.core.config.UsageException;
import org.coflow.core.policy.Policies;
import org.coflow.sim.report.Json;
import org.coflow.stress.load.MasterLoad;

/** {@code bin/coflow bench master}: the master's scale benchmark (see {@link #HELP}). */
public final class LoadCommand {
  static final String HELP =
      """
      Usage: coflow bench master [--flows N] [--agents LIST] [--policy NAME] [--interval MS]
                                 [--seconds S] [--bandwidth RATE] [--http-port N] [--json]

      bench master: starts a real master and plays simulated agents against it over gRPC on
      loopback, each reporting its flows every interval and advancing them at the pushed rates.
      Prints, per run, the policy's decision time per round (p50/p99), whole rounds (merge +
      policy + push), and whether the master kept up (p99 round below the interval and no
      growing delay). --agents takes a comma-separated list to find the largest sustainable
      count; without --flows each agent has 100 flows, without --agents there is one agent per
      1000 flows. Defaults: aalo, 100 ms, 10 s per run, 10 Gbit/s hosts. --http-port serves the
      master's dashboard during the run.
      """;

  private LoadCommand() {}

  public static int run(String[] argv, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench master",
            argv,
            Set.of("flows", "agents", "policy", "interval", "seconds", "bandwidth", "http-port"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    String policy = a.get("policy", "aalo");
    if (!Policies.NAMES.contains(policy)) {
      throw new UsageException(
          "coflow bench master: unknown policy '"
              + policy
              + "'; valid: "
              + String.join(", ", Policies.NAMES));
    }
    long interval = positive(a, "interval", "100");
    double seconds = positive(a, "seconds", "10");
    double bandwidth;
    try {
      bandwidth = ConfigType.BIT_RATE.parse(a.get("bandwidth", "10g"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench master: --bandwidth: " + e.getMessage());
    }
    List<Integer> agentCounts = new ArrayList<>();
    for (String part : a.get("agents", "").split(",")) {
      if (!part.isBlank()) {
        agentCounts.add((int) positive("agents", part.trim()));
      }
    }
    Integer flows = a.has("flows") ? (int) positive(a, "flows", "0") : null;
    if (agentCounts.isEmpty()) {
      agentCounts.add(flows == null ? 100 : Math.max(1, flows / 1000));
    }
    boolean json = a.has("json");
    // Hundreds of sessions opening are not news here; warnings and errors still show.
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.master.service", "warn");
    PrintStream progress = json ? null : err;
    if (!json) {
      out.printf(
          Locale.ROOT,
          "%-7s %7s %8s %10s %10s %10s %10s %10s %10s %10s %9s %9s %s%n",
          "policy",
          "agents",
          "flows",
          "dec_p50ms",
          "dec_p99ms",
          "cpu_p99ms",
          "rnd_p50ms",
          "rnd_p99ms",
          "merge_p99",
          "push_p99",
          "behindms",
          "overruns",
          "kept_up");
    }
    for (int agents : agentCounts) {
      int n = flows != null ? flows : 100 * agents;
      MasterLoad.Result r;
      try {
        r =
            new MasterLoad(policy, agents, n, interval, seconds, bandwidth)
                .httpPort(a.has("http-port") ? (int) positive(a, "http-port", "0") : -1)
                .run(progress);
      } catch (IllegalArgumentException e) {
        throw new UsageException("coflow bench master: " + e.getMessage());
      } catch (IOException e) {
        throw e;
      } catch (Exception e) {
        err.println("coflow bench master: the run with " + agents + " agents failed: " + e);
        return 1;
      }
      if (json) {
        out.println(
            new Json()
                .put("policy", r.policy())
                .put("agents", r.agents())
                .put("flows", r.flows())
                .put("interval_ms", r.intervalMs())
                .put("seconds", r.seconds())
                .put("rounds", r.rounds())
                .put("decision_p50_ms", r.decisionP50Ms())
                .put("decision_p99_ms", r.decisionP99Ms())
                .put("decision_cpu_p50_ms", r.decisionCpuP50Ms())
                .put("decision_cpu_p99_ms", r.decisionCpuP99Ms())
                .put("round_p50_ms", r.roundP50Ms())
                .put("round_p99_ms", r.roundP99Ms())
                .put("merge_p99_ms", r.mergeP99Ms())
                .put("push_p99_ms", r.pushP99Ms())
                .put("behind_start_ms", r.behindStartMs())
                .put("behind_end_ms", r.behindEndMs())
                .put("overruns", r.overruns())
                .put("updates_pushed", r.updatesPushed())
                .put("entries_pushed", r.entriesPushed())
                .put("flows_ended", r.flowsEnded())
                .put("kept_up", r.keptUp()));
      } else {
        out.printf(
            Locale.ROOT,
            "%-7s %7d %8d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %9.1f %9d %s%n",
            r.policy(),
            r.agents(),
            r.flows(),
            r.decisionP50Ms(),
            r.decisionP99Ms(),
            r.decisionCpuP99Ms(),
            r.roundP50Ms(),
            r.roundP99Ms(),
            r.mergeP99Ms(),
            r.pushP99Ms(),
            r.behindEndMs(),
            r.overruns(),
            r.keptUp() ? "yes" : "no");
      }
      out.flush();
    }
    return 0;
  }

  private static long positive(Args a, String name, String fallback) throws UsageException {
    return positive(name, a.get(name, fallback));
  }

  private static long positive(String name, String text) throws UsageException {
    try {
      long v = Long.parseLong(text);
      if (v > 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        "coflow bench master: --" + name + " must be a positive integer, got '" + text + "'");
  }
}
