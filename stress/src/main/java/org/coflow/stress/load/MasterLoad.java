package org.coflow.stress.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterService;

/**
 * The master's scale benchmark: a real master in this JVM, and an {@link AgentFleet} of simulated
 * agents talking to it over gRPC on loopback from a second JVM at a lower CPU priority. The two
 * still share this machine's cores, so the figures are a lower bound on what a master on its own
 * machine sustains.
 */
public final class MasterLoad {
  /** What one run measured. */
  public record Result(
      String policy,
      int agents,
      int flows,
      long intervalMs,
      double seconds,
      long rounds,
      double decisionP50Ms,
      double decisionP99Ms,
      double decisionCpuP50Ms,
      double decisionCpuP99Ms,
      double roundP50Ms,
      double roundP99Ms,
      double mergeP99Ms,
      double pushP99Ms,
      double behindStartMs,
      double behindEndMs,
      long overruns,
      long updatesPushed,
      long entriesPushed,
      long flowsEnded) {

    /** The master kept up: 99% of rounds within the interval, and no growing delay. */
    public boolean keptUp() {
      return roundP99Ms < intervalMs && behindEndMs < intervalMs;
    }
  }

  private final String policy;
  private final int agents;
  private final int flows;
  private final long intervalMs;
  private final double seconds;
  private final double capacity;
  private int httpPort = -1;

  /**
   * @param capacity every host's link capacity in bytes/s
   */
  public MasterLoad(
      String policy, int agents, int flows, long intervalMs, double seconds, double capacity) {
    AgentFleet.checkSize(agents, flows);
    this.policy = policy;
    this.agents = agents;
    this.flows = flows;
    this.intervalMs = intervalMs;
    this.seconds = seconds;
    this.capacity = capacity;
  }

  /** Serves the master's dashboard on {@code port} during the run (-1, the default: off). */
  public MasterLoad httpPort(int port) {
    this.httpPort = port;
    return this;
  }

  public Result run(java.io.PrintStream progress) throws Exception {
    Config config =
        Config.defaults()
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, httpPort)
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.POLICY, policy)
            .with(PolicyConfig.DELTA_MS, intervalMs)
            .with(MasterConfig.SESSION_TIMEOUT_MS, 60_000L)
            .with(
                MasterConfig.MAX_HOSTS,
                Math.max(MasterConfig.MAX_HOSTS.defaultValue(), agents + 1));
    try (MasterServer server = MasterServer.start(config, null)) {
      MasterService master = server.service();
      if (progress != null && server.httpPort() >= 0) {
        progress.printf("  dashboard: http://127.0.0.1:%d/%n", server.httpPort());
      }
      Process fleet = startFleet("127.0.0.1:" + server.port());
      try {
        long warmupDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (master.activeFlows() < flows * 0.99) {
          if (!fleet.isAlive()) {
            throw new IllegalStateException(
                "the simulated agents exited with status "
                    + fleet.exitValue()
                    + " before reporting their flows");
          }
          if (System.nanoTime() > warmupDeadline) {
            throw new IllegalStateException(
                "the master holds "
                    + master.activeFlows()
                    + " of "
                    + flows
                    + " flows after 120 s: it cannot take this load");
          }
          Thread.sleep(50);
        }
        Thread.sleep(5 * intervalMs);
        master.resetLatencyWindows();
        long rounds0 = master.round();
        long overruns0 = master.overruns();
        double behindStart = master.behindMs();
        long pushed0 = counter(master, "coflow_master_pushed_updates_total");
        long entries0 = counter(master, "coflow_master_pushed_entries_total");
        long ended0 = counter(master, "coflow_master_flows_ended_total");
        if (progress != null) {
          progress.printf(
              "  %d agents, %d flows active; measuring %.0f s...%n",
              agents, master.activeFlows(), seconds);
        }
        Thread.sleep((long) (seconds * 1000));
        return new Result(
            policy,
            agents,
            master.activeFlows(),
            intervalMs,
            seconds,
            master.round() - rounds0,
            master.decisionQuantileMs(0.5),
            master.decisionQuantileMs(0.99),
            master.decisionCpuQuantileMs(0.5),
            master.decisionCpuQuantileMs(0.99),
            master.roundQuantileMs(0.5),
            master.roundQuantileMs(0.99),
            master.mergeQuantileMs(0.99),
            master.pushQuantileMs(0.99),
            behindStart,
            master.behindMs(),
            master.overruns() - overruns0,
            counter(master, "coflow_master_pushed_updates_total") - pushed0,
            counter(master, "coflow_master_pushed_entries_total") - entries0,
            counter(master, "coflow_master_flows_ended_total") - ended0);
      } finally {
        fleet.getOutputStream().close();
        if (!fleet.waitFor(20, TimeUnit.SECONDS)) {
          fleet.destroyForcibly();
        }
      }
    }
  }

  /**
   * Starts the simulated agents in a JVM of their own, under {@code nice} where it exists: the
   * master keeps its share of the cores as it would on a machine of its own.
   */
  private Process startFleet(String target) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/nice"))) {
      cmd.addAll(List.of("/usr/bin/nice", "-n", "10"));
    }
    cmd.addAll(
        JavaCommand.of(
            "-Xmx4g",
            AgentFleetMain.class.getName(),
            target,
            Integer.toString(agents),
            Integer.toString(flows),
            Long.toString(intervalMs),
            Double.toString(capacity),
            "42"));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (!"ready".equals(line)) {
      p.destroyForcibly();
      throw new IllegalStateException("the simulated agents did not start (said: " + line + ")");
    }
    return p;
  }

  private static long counter(MasterService master, String name) {
    String text = master.prometheus();
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
      }
    }
    throw new IllegalStateException("the master exports no " + name);
  }
}
