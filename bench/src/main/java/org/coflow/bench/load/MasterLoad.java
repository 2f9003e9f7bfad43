package org.coflow.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.config.Config;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.master.policy.PolicyConfig;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterServer;
import org.coflow.master.service.MasterService;

/**
 * Plays many simulated agents against a real master over gRPC on loopback: each agent reports its
 * flows every interval, and its flows advance at the rates the master pushes. A flow that finishes
 * is replaced by a new one, so the number of active flows stays put while coflows come and go.
 *
 * <p>Flows: sizes log-uniform between 1 MiB and 1 GiB (reported, so the coflows are clairvoyant),
 * each to a random other agent's host, in coflows of about {@link #FLOWS_PER_COFLOW} flows spread
 * over all agents. The master and the agents share this JVM (and its cores), so the figures are a
 * lower bound on what a master on its own machine sustains.
 */
public final class MasterLoad {
  static final int FLOWS_PER_COFLOW = 200;
  static final long MIN_SIZE = 1L << 20;
  static final long MAX_SIZE = 1L << 30;

  /** What one run measured. */
  public record Result(String policy, int agents, int flows, long intervalMs, double seconds,
      long rounds, double decisionP50Ms, double decisionP99Ms, double decisionCpuP50Ms, double decisionCpuP99Ms, double roundP50Ms, double roundP99Ms,
      double mergeP99Ms, double pushP99Ms,
      double behindStartMs, double behindEndMs, long overruns, long updatesPushed, long entriesPushed,
      long flowsFinished) {

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
  public MasterLoad(String policy, int agents, int flows, long intervalMs, double seconds, double capacity) {
    if (agents < 1 || flows < agents) {
      throw new IllegalArgumentException("need at least one agent and one flow per agent, got "
          + agents + " agents and " + flows + " flows");
    }
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
    Config config = Config.defaults().with(MasterConfig.PORT, 0).with(MasterConfig.HTTP_PORT, httpPort)
        .with(MasterConfig.HOST, "127.0.0.1").with(MasterConfig.POLICY, policy)
        .with(PolicyConfig.DELTA_MS, intervalMs).with(MasterConfig.SESSION_TIMEOUT_MS, 60_000L);
    ScheduledExecutorService shared = Executors.newScheduledThreadPool(2, r -> {
      Thread t = new Thread(r, "load-agents");
      t.setDaemon(true);
      return t;
    });
    List<SimAgent> sims = new ArrayList<>();
    try (MasterServer server = MasterServer.start(config, null)) {
      MasterService master = server.service();
      if (progress != null && server.httpPort() >= 0) {
        progress.printf("  dashboard: http://127.0.0.1:%d/%n", server.httpPort());
      }
      int coflows = Math.max(1, flows / FLOWS_PER_COFLOW);
      SplittableRandom random = new SplittableRandom(42);
      for (int i = 0; i < agents; i++) {
        String host = "host-" + i;
        MasterClient client = new MasterClient(new MasterClientOptions("127.0.0.1:" + server.port(), host)
            .capacity(capacity, capacity).scheduler(shared).callTimeout(30_000), u -> {});
        int mine = flows / agents + (i < flows % agents ? 1 : 0);
        sims.add(new SimAgent(i, client, mine, coflows, random.split()));
      }
      for (SimAgent a : sims) {
        a.client.start();
        a.startFlows();
      }
      ScheduledFuture<?> mover = shared.scheduleAtFixedRate(() -> {
        for (SimAgent a : sims) {
          a.advance(intervalMs / 1000.0);
        }
      }, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
      long warmupDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (master.activeFlows() < flows * 0.99) {
        if (System.nanoTime() > warmupDeadline) {
          throw new IllegalStateException("the master holds " + master.activeFlows() + " of "
              + flows + " flows after 120 s: it cannot take this load");
        }
        Thread.sleep(50);
      }
      Thread.sleep(5 * intervalMs);
      master.resetLatencyWindows();
      long rounds0 = master.round();
      long overruns0 = master.overruns();
      long finished0 = finished(sims);
      double behindStart = master.behindMs();
      long pushed0 = pushed(master);
      long entries0 = counter(master, "coflow_master_pushed_entries_total");
      if (progress != null) {
        progress.printf("  %d agents, %d flows active; measuring %.0f s...%n", agents,
            master.activeFlows(), seconds);
      }
      Thread.sleep((long) (seconds * 1000));
      Result r = new Result(policy, agents, master.activeFlows(), intervalMs, seconds,
          master.round() - rounds0, master.decisionQuantileMs(0.5), master.decisionQuantileMs(0.99),
          master.decisionCpuQuantileMs(0.5), master.decisionCpuQuantileMs(0.99),
          master.roundQuantileMs(0.5), master.roundQuantileMs(0.99), master.mergeQuantileMs(0.99),
          master.pushQuantileMs(0.99), behindStart, master.behindMs(),
          master.overruns() - overruns0, pushed(master) - pushed0,
          counter(master, "coflow_master_pushed_entries_total") - entries0, finished(sims) - finished0);
      mover.cancel(false);
      for (SimAgent a : sims) {
        a.client.close();
      }
      return r;
    } finally {
      shared.shutdownNow();
    }
  }

  private static long pushed(MasterService master) {
    return counter(master, "coflow_master_pushed_updates_total");
  }

  private static long counter(MasterService master, String name) {
    String text = master.prometheus();
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
      }
    }
    return 0;
  }

  private static long finished(List<SimAgent> sims) {
    long n = 0;
    for (SimAgent a : sims) {
      n += a.finished;
    }
    return n;
  }

  /** One simulated agent: its client and its flows' progress. */
  private final class SimAgent {
    final int index;
    final MasterClient client;
    final long[] ids;
    final long[] size;
    final double[] sent;
    final FlowSpec[] spec;
    final int coflows;
    final SplittableRandom random;
    long nextId = 1;
    volatile long finished;

    SimAgent(int index, MasterClient client, int count, int coflows, SplittableRandom random) {
      this.index = index;
      this.client = client;
      this.ids = new long[count];
      this.size = new long[count];
      this.sent = new double[count];
      this.spec = new FlowSpec[count];
      this.coflows = coflows;
      this.random = random;
    }

    void startFlows() {
      for (int j = 0; j < ids.length; j++) {
        replace(j);
      }
    }

    private void replace(int j) {
      ids[j] = nextId++;
      double logSize = Math.log(MIN_SIZE) + random.nextDouble() * (Math.log(MAX_SIZE) - Math.log(MIN_SIZE));
      size[j] = (long) Math.exp(logSize);
      sent[j] = 0;
      int dst = agents == 1 ? 0 : (index + 1 + random.nextInt(agents - 1)) % agents;
      spec[j] = FlowSpec.newBuilder().setCoflowId("coflow-" + random.nextInt(coflows))
          .setSrcHost("host-" + index).setDstHost(agents == 1 ? "sink" : "host-" + dst)
          .setStartTimeMs(System.currentTimeMillis()).build();
      client.updateFlow(ids[j], spec[j], 0, size[j]);
    }

    void advance(double dt) {
      for (int j = 0; j < ids.length; j++) {
        FlowSchedule s = client.flowSchedule(ids[j]);
        if (s == null || s.getRateBytesPerSec() <= 0) {
          continue;
        }
        sent[j] = Math.min(size[j], sent[j] + s.getRateBytesPerSec() * dt);
        if (sent[j] >= size[j]) {
          client.finishFlow(ids[j]);
          finished++;
          replace(j);
        } else {
          client.updateFlow(ids[j], spec[j], (long) sent[j], size[j] - (long) sent[j]);
        }
      }
    }
  }
}
