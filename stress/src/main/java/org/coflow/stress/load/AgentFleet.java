package org.coflow.stress.load;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.FlowSpec;

/**
 * Simulated agents against a master: real {@link MasterClient}s, one per host, each reporting its
 * flows every interval and advancing them at the rates the master pushes. A flow that finishes is
 * replaced by a new one, so the number of active flows stays put while coflows come and go.
 *
 * <p>Flows: sizes log-uniform between 1 MiB and 1 GiB (reported, so coflows are clairvoyant), each
 * to a random other agent's host, in coflows of about {@link #FLOWS_PER_COFLOW} flows spread over
 * all agents; the same seed gives the same flows.
 */
public final class AgentFleet implements AutoCloseable {
  static final int FLOWS_PER_COFLOW = 200;
  static final long MIN_SIZE = 1L << 20;
  static final long MAX_SIZE = 1L << 30;

  private final int agents;
  private final long intervalMs;
  private final ScheduledExecutorService shared =
      Executors.newScheduledThreadPool(
          2,
          r -> {
            Thread t = new Thread(r, "fleet");
            t.setDaemon(true);
            return t;
          });
  private final List<SimAgent> sims = new ArrayList<>();

  /**
   * @param target the master as host:port
   * @param capacity every host's link capacity in bytes/s
   */
  public AgentFleet(
      String target, int agents, int flows, long intervalMs, double capacity, long seed) {
    checkSize(agents, flows);
    this.agents = agents;
    this.intervalMs = intervalMs;
    int coflows = Math.max(1, flows / FLOWS_PER_COFLOW);
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < agents; i++) {
      MasterClient client =
          new MasterClient(
              new MasterClientOptions(target, "host-" + i)
                  .capacity(capacity, capacity)
                  .scheduler(shared)
                  .callTimeout(30_000),
              u -> {});
      int mine = flows / agents + (i < flows % agents ? 1 : 0);
      sims.add(new SimAgent(i, client, mine, coflows, random.split()));
    }
  }

  /**
   * @throws IllegalArgumentException unless there is an agent and at least a flow per agent
   */
  static void checkSize(int agents, int flows) {
    if (agents < 1 || flows < agents) {
      throw new IllegalArgumentException(
          "need at least one agent and one flow per agent, got "
              + agents
              + " agents and "
              + flows
              + " flows");
    }
  }

  public void start() {
    for (SimAgent a : sims) {
      a.client.start();
      a.startFlows();
    }
    shared.scheduleAtFixedRate(
        () -> {
          for (SimAgent a : sims) {
            a.advance(intervalMs / 1000.0);
          }
        },
        intervalMs,
        intervalMs,
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    for (SimAgent a : sims) {
      a.client.close();
    }
    shared.shutdownNow();
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
      double logSize =
          Math.log(MIN_SIZE) + random.nextDouble() * (Math.log(MAX_SIZE) - Math.log(MIN_SIZE));
      size[j] = (long) Math.exp(logSize);
      sent[j] = 0;
      int dst = agents == 1 ? 0 : (index + 1 + random.nextInt(agents - 1)) % agents;
      spec[j] =
          FlowSpec.newBuilder()
              .setCoflowId("coflow-" + random.nextInt(coflows))
              .setSrcHost("host-" + index)
              .setDstHost(agents == 1 ? "sink" : "host-" + dst)
              .setStartTimeMs(System.currentTimeMillis())
              .build();
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
          replace(j);
        } else {
          client.updateFlow(ids[j], spec[j], (long) sent[j], size[j] - (long) sent[j]);
        }
      }
    }
  }
}
