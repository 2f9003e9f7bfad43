package org.coflow.testbed.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.coflow.core.config.Args;
import org.coflow.core.config.UsageException;
import org.coflow.core.policy.Policies;
import org.coflow.sim.cli.SimCommand;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.coflow.testbed.Network;
import org.coflow.testbed.Setup;
import org.coflow.testbed.TestbedBench;
import org.coflow.testbed.TestbedReport;
import org.coflow.testbed.TestbedRun;
import org.coflow.testbed.Workload;

/** {@code bin/coflow bench testbed}: Courier on a multi-host network-namespace testbed. */
public final class TestbedBenchCommand {
  private static final String NAME = "coflow bench testbed";

  static final String HELP =
      """
      Usage: coflow bench testbed [--hosts 8] [--rate 100m] [--buffer 128k] [--tcp reno|bbr]
                                  [--rto-min MS] [--notsent-lowat 128k]
                                  [--policies fair,aalo,sincronia,varys,graviton,creek,coda]
                                  [--courier on|off|both] [--max-num LIST]
                                  [--trace FILE] [--first 100] [--coflows 60]
                                  [--bytes-divisor 100] [--time-divisor 10] [--fetchers 5]
                                  [--repeat 1] [--timeout 600] [--out DIR] [--json]

      Replays a slice of the Facebook coflow trace as real shuffles between N hosts, each a Linux
      network namespace joined to a bridge by a veth pair shaped with tc (tbf) in both directions
      at --rate, with a queue of --buffer bytes per port (a shallow switch buffer, where incast
      drops packets). Needs root (ip netns, tc). --tcp sets the hosts' congestion control
      (default reno: loss-based AIMD, the kind Courier's argument is about; a namespace may use
      only what /proc/sys/net/ipv4/tcp_allowed_congestion_control lists), --rto-min their minimum
      retransmission timeout (default: the kernel's 200 ms), --notsent-lowat their
      net.ipv4.tcp_notsent_lowat (default 128k; 0: the kernel's, no limit), which keeps a
      sender's unsent socket backlog short so that an agent's priorities act within a round trip
      instead of behind megabytes already handed to TCP. Map outputs of the right sizes are written once
      and every setup fetches the same blocks:

        baseline          no agents: each reducer fetches from every map host over connections
                          of its own, --fetchers at a time (Hadoop's parallel copies, 5)
        courier           a Courier agent per host (MaxNum 8, unified connections per host
                          pair), no master: each agent's own fair sharing (coflows share bytes)
        courier+P         the same agents with the master (in the root namespace) running
                          policy P, whose rates and priorities the agents enforce
        unmerged, unmerged+P
                          the same agents (and policy), one connection per flow, MaxNum
                          unbounded (--courier off or both)
        courier/maxnum=K, courier/adaptive
                          with --max-num 1,4,8,adaptive: agents without a master with fixed
                          budgets and with the adaptive controller (coflow.courier.maxNum.adaptive)

      Trace ports land on hosts round-robin; a coflow's mappers on one host form one map output;
      bytes are divided by --bytes-divisor and gaps between arrivals by --time-divisor. Prints per
      setup, as medians over its runs (--repeat; runs here vary by about 20%), the average CCT
      and the runs' range, the p95 CCT, the median CCT of coflows under 1 MB, the ratio to the
      baseline, TCP retransmissions and timeouts (all hosts), the most data connections one host
      and all hosts held, and whether every byte arrived intact (CRC32 per reducer); then the
      ratios against the data plane's targets: courier / baseline <= 0.90 (average CCT) and
      <= 0.5 (retransmissions), coflows under 1 MB <= 1.5x the baseline's median, each
      courier+P / unmerged+P <= 1.10 and their geometric mean <= 0.95, the best courier+P /
      baseline <= 0.75. --out (default target/testbed) gets coflows.csv, connections.csv,
      summary.json, cct-cdf.png, retransmissions.png, connections.png and the hosts' logs.
      --repeat runs every setup that many times, in rounds.
      """;

  private TestbedBenchCommand() {}

  public static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench testbed",
            argv,
            Set.of(
                "hosts",
                "rate",
                "buffer",
                "tcp",
                "rto-min",
                "notsent-lowat",
                "policies",
                "courier",
                "max-num",
                "trace",
                "first",
                "coflows",
                "bytes-divisor",
                "time-divisor",
                "fetchers",
                "repeat",
                "timeout",
                "out"),
            Set.of("json", "help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    int hosts = Options.positive(NAME, a, "hosts", "8");
    if (hosts < 2 || hosts > 60) {
      throw new UsageException("coflow bench testbed: --hosts " + hosts + ": use 2 to 60");
    }
    Network.Link link = Options.link(NAME, a, "100m");
    List<String> policies = new ArrayList<>();
    for (String p : a.get("policies", "fair,aalo,sincronia,varys,graviton,creek,coda").split(",")) {
      if (!Policies.NAMES.contains(p.trim())) {
        throw new UsageException(
            "coflow bench testbed: unknown policy '"
                + p
                + "' in --policies; policies: "
                + String.join(", ", Policies.NAMES));
      }
      policies.add(p.trim());
    }
    String courier = a.get("courier", "both");
    if (!Set.of("on", "off", "both").contains(courier)) {
      throw new UsageException(
          "coflow bench testbed: --courier must be on, off or both, got '" + courier + "'");
    }
    LinkedHashSet<Setup> setups = new LinkedHashSet<>();
    setups.add(Setup.baseline());
    List<String> withAgents = new ArrayList<>();
    withAgents.add(Setup.NO_MASTER);
    withAgents.addAll(policies);
    for (String p : withAgents) {
      if (!courier.equals("off")) {
        setups.add(Setup.courier(p, 8));
      }
      if (!courier.equals("on")) {
        setups.add(Setup.withoutMerging(p));
      }
    }
    if (a.has("max-num")) {
      for (String m : a.get("max-num", "").split(",")) {
        if (m.trim().equals("adaptive")) {
          setups.add(Setup.adaptive(Setup.NO_MASTER, 8));
          continue;
        }
        try {
          int k = Integer.parseInt(m.trim());
          if (k < 1) {
            throw new NumberFormatException();
          }
          setups.add(Setup.courier(Setup.NO_MASTER, k));
        } catch (NumberFormatException e) {
          throw new UsageException(
              "coflow bench testbed: --max-num takes budgets (positive integers) and 'adaptive', "
                  + "got '"
                  + m
                  + "'");
        }
      }
    }
    Path tracePath =
        a.has("trace") ? Path.of(a.get("trace", null)) : home.resolve(SimCommand.DEFAULT_TRACE);
    Trace trace;
    try {
      trace = TraceParser.parse(tracePath);
    } catch (IOException | org.coflow.sim.trace.TraceFormatException | RuntimeException e) {
      err.println(
          "coflow bench testbed: cannot read the trace " + tracePath + ": " + e.getMessage());
      return 1;
    }
    Workload workload;
    try {
      workload =
          Workload.fromTrace(
              trace,
              hosts,
              Options.nonNegative(NAME, a, "first", "100"),
              Options.positive(NAME, a, "coflows", "60"),
              Options.parse(NAME, a, "bytes-divisor", "100", Double::parseDouble),
              Options.parse(NAME, a, "time-divisor", "10", Double::parseDouble));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench testbed: " + e.getMessage());
    }
    Path outDir = Path.of(a.get("out", "target/testbed")).toAbsolutePath();
    boolean json = a.has("json");
    TestbedBench.Plan plan;
    try {
      plan =
          new TestbedBench.Plan(
              hosts,
              link,
              workload,
              List.copyOf(setups),
              Options.positive(NAME, a, "repeat", "1"),
              Options.positive(NAME, a, "fetchers", "5"),
              Options.positive(NAME, a, "timeout", "600"),
              outDir);
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench testbed: " + e.getMessage());
    }
    String why = Network.unavailableReason();
    if (why != null) {
      err.println("coflow bench testbed: cannot build the testbed here: " + why);
      return 1;
    }
    TestbedRun.Progress bar = json ? TestbedRun.Progress.NONE : progress(err, workload);
    TestbedBench.Outcome outcome;
    try {
      outcome = TestbedBench.run(plan, bar);
    } catch (Exception e) {
      err.println();
      err.println("coflow bench testbed: the run failed: " + e);
      return 1;
    }
    if (!json) {
      err.print("\r" + " ".repeat(100) + "\r");
    }
    TestbedReport report = new TestbedReport(outcome);
    report.write(outDir);
    if (json) {
      out.println(report.json());
    } else {
      report.printTable(out);
      err.println(
          "wrote " + outDir + " (coflows.csv, connections.csv, summary.json, *.png, logs/)");
    }
    boolean intact =
        outcome.runs().values().stream().allMatch(l -> l.stream().allMatch(r -> r.intact()));
    return intact ? 0 : 1;
  }

  /** A one-line bar on a terminal, else a line per setup when it ends. */
  private static TestbedRun.Progress progress(PrintStream err, Workload w) {
    boolean terminal = System.console() != null;
    return new TestbedRun.Progress() {
      private long last;
      private String label = "";

      @Override
      public void update(String setup, int finished, int total, double seconds) {
        long now = System.nanoTime();
        if (!terminal) {
          if (!setup.equals(label)) {
            err.println("testbed: running " + setup);
            label = setup;
          }
          return;
        }
        if (now - last < 200_000_000L && finished < total) {
          return;
        }
        last = now;
        int filled = total == 0 ? 30 : 30 * finished / total;
        err.printf(
            Locale.ROOT,
            "\r%-28s [%s%s] t=%.0fs (arrivals end %.0fs) %d/%d coflows done ",
            setup,
            "#".repeat(filled),
            ".".repeat(30 - filled),
            seconds,
            w.coflows().get(w.coflows().size() - 1).arrivalMs() / 1e3,
            finished,
            total);
        err.flush();
      }
    };
  }
}
