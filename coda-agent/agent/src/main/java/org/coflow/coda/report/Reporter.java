package org.coflow.coda.report;

import io.grpc.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.client.MasterCredentials;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionResponse;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.coda.CodaConfig;
import org.coflow.coda.CodaLog;
import org.coflow.coda.flow.Connections;
import org.coflow.coda.flow.FlowView;
import org.coflow.core.config.Config;

/**
 * Tells the master about this JVM's flows every interval Δ and hands the rates it sends back to the
 * pacer. One session per JVM, marked {@code shared_host}: every JVM of a machine (executors,
 * NodeManager, task JVMs) names the machine's host id and reports the flows it sends, so a flow
 * seen by both its ends is reported once, by its sender, which is also where it is paced.
 *
 * <p>The master is never waited on: without one (or while it is away) nothing is paced, and a
 * schedule arriving later applies to the flows still running.
 */
public final class Reporter implements MasterClient.Listener, AutoCloseable {
  /** Attributes a flow carries (identification reads the ports only). */
  public static final String SRC_PORT = "src_port";

  public static final String DST_PORT = "dst_port";
  public static final String LABEL = "label.coflow";

  private final Connections connections;
  private final ScheduledExecutorService timer;
  private final String hostId;
  private final boolean labelled;
  private final boolean pace;
  private final MasterClient client;

  public Reporter(
      Config c, Connections connections, ScheduledExecutorService timer, ThreadFactory threads) {
    this.connections = connections;
    this.timer = timer;
    this.hostId = hostId(c.get(CodaConfig.HOST_ID));
    this.labelled = c.get(CodaConfig.MODE).equals("labelled");
    this.pace = c.get(CodaConfig.PACE);
    String master = c.get(CodaConfig.MASTER);
    if (master.isEmpty()) {
      client = null;
      return;
    }
    Map<String, String> labels = new HashMap<>();
    labels.put("agent", "coda-agent");
    labels.put("mode", c.get(CodaConfig.MODE));
    labels.put("pid", Long.toString(ProcessHandle.current().pid()));
    double link = c.get(CodaConfig.LINK_RATE);
    MasterClientOptions o =
        new MasterClientOptions(master, hostId)
            .sharedHost(true)
            .labels(labels)
            .capacity(link, link)
            .reportInterval(c.get(CodaConfig.REPORT_INTERVAL_MS))
            .scheduler(timer)
            .channelThreads(threads)
            .credentials(
                MasterCredentials.fromFiles(
                    c.get(CodaConfig.TOKEN_FILE), c.get(CodaConfig.TLS_TRUST_CERT_FILE), "", ""));
    client = new MasterClient(o, this);
  }

  /** This machine's host id: configured, or the address of its host name. */
  static String hostId(String configured) {
    if (!configured.isEmpty()) {
      return configured;
    }
    try {
      return InetAddress.getLocalHost().getHostAddress();
    } catch (Exception e) {
      return InetAddress.getLoopbackAddress().getHostAddress();
    }
  }

  public String hostId() {
    return hostId;
  }

  /**
   * Starts reporting: a flow that crosses the threshold is reported at once (the writer hands it to
   * the agent's thread, at most one pass queued at a time), and a full pass runs every {@code
   * reportMillis}.
   */
  public void start(long reportMillis) {
    if (client != null) {
      client.start();
    }
    java.util.concurrent.atomic.AtomicBoolean queued =
        new java.util.concurrent.atomic.AtomicBoolean();
    connections.onFresh(
        () -> {
          if (queued.compareAndSet(false, true)) {
            timer.execute(
                () -> {
                  queued.set(false);
                  report(connections::fresh);
                });
          }
        });
    timer.scheduleWithFixedDelay(
        () -> report(connections::sweep), reportMillis, reportMillis, TimeUnit.MILLISECONDS);
  }

  private void report(java.util.function.Supplier<List<FlowView>> pass) {
    try {
      List<FlowView> flows = pass.get();
      if (client == null || flows.isEmpty()) {
        return;
      }
      boolean fresh = false;
      for (FlowView f : flows) {
        client.updateFlow(f.id, f.first ? spec(f) : null, f.bytes, -1);
        if (f.finished) {
          client.finishFlow(f.id);
        }
        fresh |= f.first;
      }
      if (fresh) {
        client.reportNow();
      }
    } catch (Throwable t) {
      // Logged once; the next pass tries again (a thrown error would end the periodic task).
      CodaLog.once("sweep", "reporting flows failed (flows go on unpaced): " + t);
    }
  }

  FlowSpec spec(FlowView f) {
    FlowSpec.Builder b =
        FlowSpec.newBuilder()
            .setSrcHost(hostId)
            .setDstHost(host(f.remote))
            .setStartTimeMs(f.startMillis)
            .putAttributes(SRC_PORT, Integer.toString(f.local.getPort()))
            .putAttributes(DST_PORT, Integer.toString(f.remote.getPort()))
            .putAttributes("size_mean", format(f.sizeMean))
            .putAttributes("size_var", format(f.sizeVariance))
            .putAttributes("gap_mean_ms", format(f.gapMeanMillis))
            .putAttributes("gap_var_ms", format(f.gapVarianceMillis));
    if (f.label != null) {
      b.putAttributes(LABEL, f.label);
      if (labelled) {
        b.setCoflowId(f.label);
      }
    }
    return b.build();
  }

  /** A remote end's host id: its IP address, or this host's id for a local address. */
  private String host(InetSocketAddress remote) {
    InetAddress a = remote.getAddress();
    if (a == null) {
      return remote.getHostString();
    }
    if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.getHostAddress().equals(hostId)) {
      return hostId;
    }
    return a.getHostAddress();
  }

  private static String format(double v) {
    return String.format(java.util.Locale.ROOT, "%.3f", v);
  }

  @Override
  public void onSchedule(ScheduleUpdate update) {
    if (!pace) {
      return;
    }
    Map<Long, Double> rates = new HashMap<>();
    for (Map.Entry<Long, FlowSchedule> e : client.flowSchedules().entrySet()) {
      rates.put(e.getKey(), e.getValue().getRateBytesPerSec());
    }
    connections.pace(rates);
  }

  @Override
  public void onSession(OpenSessionResponse session) {
    connections.coordinated(pace);
    CodaLog.reset("master-down");
    CodaLog.once(
        "master-up:" + session.getMasterId(),
        "reporting to master "
            + session.getMasterId()
            + " as host "
            + hostId
            + " (policy "
            + session.getPolicy()
            + ")");
  }

  @Override
  public void onDisconnected(Status status, long retryInMillis) {
    connections.coordinated(false);
    connections.pace(Map.of());
    CodaLog.once(
        "master-down",
        "master unreachable ("
            + status.getCode()
            + (status.getDescription() != null ? ": " + status.getDescription() : "")
            + "); flows go unpaced, retrying in the background");
  }

  @Override
  public void close() throws InterruptedException {
    if (client != null) {
      client.close();
    }
  }
}
