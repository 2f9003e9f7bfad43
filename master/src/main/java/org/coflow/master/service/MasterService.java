package org.coflow.master.service;

import io.grpc.BindableService;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.coflow.core.config.Config;
import org.coflow.core.identify.AttributeIdentifier;
import org.coflow.core.identify.CodaCoflowIdentifier;
import org.coflow.core.identify.CodaMetric;
import org.coflow.core.identify.CoflowIdentifier;
import org.coflow.core.model.ClusterState;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.core.policy.SchedulingPolicy;

/**
 * The master without its transports: the registry, the scheduling loop and the gRPC service
 * implementations, ready to be bound to any gRPC server (Netty in {@code
 * org.coflow.master.MasterServer}, in-process in tests). Lifecycle: construct, bind {@link
 * #services()}, {@link #start()}, {@link #close()}.
 */
public final class MasterService implements AutoCloseable {
  private final Config config;
  private final String masterId = UUID.randomUUID().toString();
  private final MasterState tables;
  private final SchedulerLoop loop;
  private final List<BindableService> services;
  private final ExecutorService sender;
  private final SchedulePusher pusher;

  public MasterService(Config config) {
    this(config, identifier(config));
  }

  /**
   * The identifier the configuration asks for.
   *
   * @throws IllegalArgumentException naming the key and value for a bad ε/τ or metric file
   */
  public static CoflowIdentifier identifier(Config config) {
    if (config.get(MasterConfig.IDENTIFY_MODE).equals("attribute")) {
      return new AttributeIdentifier(config.get(MasterConfig.IDENTIFY_ATTRIBUTE));
    }
    CodaMetric metric = CodaMetric.PAPER_SPARK_HADOOP;
    String file = config.get(MasterConfig.IDENTIFY_METRIC).trim();
    if (!file.isEmpty()) {
      try {
        metric = CodaMetric.load(java.nio.file.Path.of(file));
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException(
            MasterConfig.IDENTIFY_METRIC.key()
                + "="
                + file
                + ": cannot read the weights file ("
                + e
                + "); write one with bin/coflow bench identify --learn FILE,"
                + " or leave the key empty for the paper's weights",
            e);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            MasterConfig.IDENTIFY_METRIC.key() + ": " + e.getMessage(), e);
      }
    }
    double eps = config.get(MasterConfig.IDENTIFY_EPS);
    double tau = config.get(MasterConfig.IDENTIFY_TAU);
    if (tau > eps) {
      throw new IllegalArgumentException(
          MasterConfig.IDENTIFY_TAU.key()
              + "="
              + tau
              + " is larger than "
              + MasterConfig.IDENTIFY_EPS.key()
              + "="
              + eps
              + ": a leader's range must be at most ε");
    }
    return new CodaCoflowIdentifier(
        metric,
        eps,
        tau,
        config.get(MasterConfig.IDENTIFY_HADOOP_PORT),
        config.get(MasterConfig.IDENTIFY_REPORT_DELAY_MS));
  }

  /**
   * @throws IllegalArgumentException for a configuration the master cannot run with
   */
  public MasterService(Config config, CoflowIdentifier identifier) {
    this.config = config;
    long interval = config.get(PolicyConfig.DELTA_MS);
    if (interval < 1) {
      throw new IllegalArgumentException(
          "coflow.policy.delta="
              + interval
              + " ms: the master "
              + "needs a scheduling interval of at least 1 ms (0 is only meaningful to the simulator)");
    }
    long timeout = config.get(MasterConfig.SESSION_TIMEOUT_MS);
    this.tables = new MasterState(timeout, new Limits(config));
    ModelSync model = new ModelSync(config.get(MasterConfig.DEFAULT_CAPACITY), identifier);
    this.sender =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "coflow-push");
              t.setDaemon(true);
              return t;
            });
    this.pusher = new SchedulePusher(config.get(MasterConfig.PUSH_TOLERANCE), sender);
    SchedulingPolicy policy = Policies.create(config.get(MasterConfig.POLICY), config);
    this.loop = new SchedulerLoop(tables, model, pusher, policy, interval);
    this.services =
        List.of(
            new AgentServiceImpl(tables, loop, masterId, timeout),
            new CoflowServiceImpl(tables),
            new AdminServiceImpl(this));
  }

  public List<BindableService> services() {
    return services;
  }

  public void start() {
    loop.start();
  }

  @Override
  public void close() throws InterruptedException {
    loop.stop();
    sender.shutdown();
    sender.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Changes whenever a master starts; agents tell a restarted master by it. */
  public String masterId() {
    return masterId;
  }

  public SchedulingPolicy policy() {
    return loop.policy();
  }

  /**
   * Switches the policy from the next round on.
   *
   * @throws IllegalArgumentException for an unknown name, listing the valid ones
   */
  public SchedulingPolicy setPolicy(String name) {
    SchedulingPolicy next = Policies.create(name, config);
    loop.switchPolicy(next);
    return next;
  }

  public long intervalMillis() {
    return loop.intervalMillis();
  }

  /** Scheduling rounds completed so far (the epoch of the latest updates). */
  public long round() {
    return loop.round();
  }

  /** Quantile {@code q} of the policy's run time over the last 1024 rounds, in milliseconds. */
  public double decisionQuantileMs(double q) {
    return loop.decisions.quantile(q);
  }

  /**
   * Quantile {@code q} of the CPU time the scheduling thread spent in the policy, in ms: the
   * decision's own cost, without the waits for a core that a busy machine adds to its wall time.
   */
  public double decisionCpuQuantileMs(double q) {
    return loop.decisionsCpu.quantile(q);
  }

  /** Quantile {@code q} of whole rounds (merge, policy, push) over the last 1024, in ms. */
  public double roundQuantileMs(double q) {
    return loop.rounds.quantile(q);
  }

  /** Forgets the recent round and decision times (a benchmark's warm-up). */
  public void resetLatencyWindows() {
    loop.resetWindows();
  }

  /**
   * Quantile {@code q} of the merge phase (reports into the model) over the last 1024 rounds, ms.
   */
  public double mergeQuantileMs(double q) {
    return loop.merges.quantile(q);
  }

  /** Quantile {@code q} of the push phase (diff and send) over the last 1024 rounds, ms. */
  public double pushQuantileMs(double q) {
    return loop.pushes.quantile(q);
  }

  /** How late the latest round started against its due time, in ms. */
  public double behindMs() {
    return loop.behindMs();
  }

  /** Rounds that took longer than Δ. */
  public long overruns() {
    return loop.overruns.get();
  }

  public int activeFlows() {
    return loop.flowCount();
  }

  /** A consistent snapshot, listing at most {@code maxFlowsPerCoflow} flows per coflow. */
  public MasterSnapshot snapshot(int maxFlowsPerCoflow) {
    return loop.inspect(
        view ->
            SnapshotBuilder.build(
                view,
                tables.agents(System.nanoTime()),
                maxFlowsPerCoflow,
                loop.decisions.quantile(0.5),
                loop.decisions.quantile(0.99),
                loop.behindMs(),
                loop.intervalMillis()),
        10_000);
  }

  /** Runs {@code f} on the scheduling thread against the live model (tests, diagnostics). */
  public <T> T inspectModel(Function<ClusterState, T> f) {
    return loop.inspect(view -> f.apply(view.model().state()), 10_000);
  }

  /** Metrics in the Prometheus text exposition format. */
  public String prometheus() {
    StringBuilder out = new StringBuilder(2048);
    loop.decisions.appendPrometheus(
        out, "coflow_master_decision_seconds", "Time the policy took per scheduling round.");
    loop.rounds.appendPrometheus(
        out,
        "coflow_master_round_seconds",
        "Time per scheduling round: merge reports, run the policy, push updates.");
    loop.merges.appendPrometheus(
        out,
        "coflow_master_merge_seconds",
        "Time per round to merge the agents' reports into the model.");
    loop.pushes.appendPrometheus(
        out,
        "coflow_master_push_seconds",
        "Time per round to diff the schedule and push updates to agents.");
    gauge(out, "coflow_master_flows", "Active flows in the model.", loop.flowCount());
    gauge(out, "coflow_master_coflows", "Active coflows in the model.", loop.coflowCount());
    gauge(out, "coflow_master_agents", "Open agent sessions.", tables.sessionCount());
    gauge(
        out,
        "coflow_master_round_behind_seconds",
        "How late the latest round started against its due time.",
        loop.behindMs() / 1000);
    gauge(
        out,
        "coflow_master_interval_seconds",
        "The scheduling interval.",
        loop.intervalMillis() / 1000.0);
    counter(out, "coflow_master_rounds_total", "Scheduling rounds completed.", loop.round());
    counter(
        out,
        "coflow_master_round_overruns_total",
        "Rounds that took longer than the interval.",
        loop.overruns.get());
    counter(
        out,
        "coflow_master_round_failures_total",
        "Rounds that failed with an error.",
        loop.failures.get());
    counter(
        out,
        "coflow_master_flows_ended_total",
        "Flows that left the model: finished, dropped with their session or coflow.",
        loop.flowsEnded.get());
    counter(
        out,
        "coflow_master_pushed_updates_total",
        "Schedule updates pushed to agents.",
        pusher.updatesSent.get());
    counter(
        out,
        "coflow_master_pushed_entries_total",
        "Flow and pair entries carried by pushed updates.",
        pusher.entriesSent.get());
    counter(
        out,
        "coflow_master_dropped_rounds_total",
        "Rounds whose updates were dropped because sending lagged (agents then get full schedules).",
        pusher.dropped.get());
    out.append("# HELP coflow_master_policy_info The policy in force.\n")
        .append("# TYPE coflow_master_policy_info gauge\n")
        .append("coflow_master_policy_info{policy=\"")
        .append(loop.policy().name())
        .append("\",type=\"")
        .append(loop.policy().type().name())
        .append("\"} 1\n");
    return out.toString();
  }

  private static void gauge(StringBuilder out, String name, String help, double value) {
    out.append("# HELP ")
        .append(name)
        .append(' ')
        .append(help)
        .append('\n')
        .append("# TYPE ")
        .append(name)
        .append(" gauge\n")
        .append(name)
        .append(' ')
        .append(value)
        .append('\n');
  }

  private static void counter(StringBuilder out, String name, String help, long value) {
    out.append("# HELP ")
        .append(name)
        .append(' ')
        .append(help)
        .append('\n')
        .append("# TYPE ")
        .append(name)
        .append(" counter\n")
        .append(name)
        .append(' ')
        .append(value)
        .append('\n');
  }
}
