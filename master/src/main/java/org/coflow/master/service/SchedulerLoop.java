package org.coflow.master.service;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling loop: every Δ it merges the round's reports into the model, runs the policy and
 * pushes to each agent what changed for it. Everything it owns (the model, the policy, what was
 * pushed) lives on its single thread; other threads reach it only through {@link #inspect}.
 */
final class SchedulerLoop {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

  /** Smoothing of the measured per-host traffic (weight of the newest round). */
  private static final double TRAFFIC_SMOOTHING = 0.3;

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private final MasterState tables;
  private final ModelSync model;
  private final SchedulePusher pusher;
  private final long intervalNanos;
  private final ScheduledExecutorService executor;
  private final AtomicReference<SchedulingPolicy> requested = new AtomicReference<>();
  private final List<FlowRecord> removed = new ArrayList<>();
  private SchedulingPolicy policy;
  private volatile SchedulingPolicy current;

  /** Every live session (several shared-host sessions may name one host). */
  private List<AgentSession> sessions = List.of();

  private long startNanos;
  private long dueNanos;
  private double[] sendRate = new double[0];
  private double[] receiveRate = new double[0];
  private double[] allocatedSend = new double[0];
  private double[] allocatedReceive = new double[0];
  private long lastRoundNanos;

  final LatencyWindow decisions = new LatencyWindow(1024);
  final LatencyWindow rounds = new LatencyWindow(1024);
  final LatencyWindow decisionsCpu = new LatencyWindow(1024);
  final LatencyWindow merges = new LatencyWindow(1024);
  final LatencyWindow pushes = new LatencyWindow(1024);
  final AtomicLong overruns = new AtomicLong();
  final AtomicLong flowsEnded = new AtomicLong();
  final AtomicLong failures = new AtomicLong();
  private volatile long round;
  private volatile double behindMs;
  private volatile int flowCount;
  private volatile int coflowCount;

  SchedulerLoop(
      MasterState tables,
      ModelSync model,
      SchedulePusher pusher,
      SchedulingPolicy policy,
      long intervalMillis) {
    this.tables = tables;
    this.model = model;
    this.pusher = pusher;
    this.policy = policy;
    this.current = policy;
    model.attach(policy);
    this.intervalNanos = intervalMillis * 1_000_000L;
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "coflow-scheduler");
              t.setDaemon(true);
              return t;
            });
  }

  void start() {
    startNanos = System.nanoTime();
    dueNanos = startNanos + intervalNanos;
    lastRoundNanos = startNanos;
    executor.scheduleAtFixedRate(
        this::runRound, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
  }

  void stop() throws InterruptedException {
    executor.shutdown();
    if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
      executor.shutdownNow();
    }
  }

  /** Takes effect at the next round. */
  synchronized void switchPolicy(SchedulingPolicy next) {
    requested.set(next);
    current = next;
  }

  SchedulingPolicy policy() {
    return current;
  }

  long intervalMillis() {
    return intervalNanos / 1_000_000L;
  }

  /** Rounds completed so far; the epoch of the latest pushed updates. */
  long round() {
    return round;
  }

  /** How late the latest round started against its due time, in milliseconds. */
  double behindMs() {
    return behindMs;
  }

  int flowCount() {
    return flowCount;
  }

  int coflowCount() {
    return coflowCount;
  }

  /**
   * Runs {@code view} on the scheduling thread between two rounds and returns its result.
   *
   * @throws IllegalStateException if the loop does not answer within {@code timeoutMillis}
   */
  <T> T inspect(Function<LoopView, T> view, long timeoutMillis) {
    CompletableFuture<T> result =
        CompletableFuture.supplyAsync(() -> view.apply(new LoopView()), executor);
    try {
      return result.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the scheduling thread", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "inspecting the scheduler failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "the scheduling thread did not answer within "
              + timeoutMillis
              + " ms (it is behind by "
              + behindMs
              + " ms)",
          e);
    }
  }

  void resetWindows() {
    decisions.reset();
    decisionsCpu.reset();
    rounds.reset();
    merges.reset();
    pushes.reset();
  }

  private void runRound() {
    long t0 = System.nanoTime();
    behindMs = (t0 - dueNanos) / 1e6;
    dueNanos += intervalNanos;
    try {
      round(t0);
    } catch (RuntimeException | Error e) {
      // The executor would silently stop scheduling after a thrown exception: log it and go on.
      failures.incrementAndGet();
      LOG.error(
          "scheduling round {} failed; every agent gets a full schedule next round", round + 1, e);
      pusher.abandonRound(sessions);
      removed.clear();
    }
    double ms = (System.nanoTime() - t0) / 1e6;
    rounds.add(ms);
    if (ms > intervalNanos / 1e6) {
      overruns.incrementAndGet();
    }
  }

  private void round(long t0) {
    MasterState.Changes changes = tables.drain(t0);
    double now = (t0 - startNanos) / 1e9;
    for (AgentSession s : changes.endedSessions) {
      pusher.closed(s);
    }
    if (changes.sessions != null) {
      sessions = changes.sessions;
      model.sessions(changes.sessions);
    }
    if (changes.coflows != null) {
      model.registrations(changes.coflows);
    }
    SchedulingPolicy next = requested.getAndSet(null);
    if (next != null) {
      LOG.info("policy switched from {} to {} at round {}", policy.name(), next.name(), round + 1);
      policy = next;
      model.attach(policy);
    }
    try {
      model.apply(changes.flows, now, System.currentTimeMillis(), removed);
      model.drop(changes.unregistered, now, removed);
    } catch (RuntimeException | Error e) {
      tables.requeue(changes.flows);
      throw e;
    }
    long d0 = System.nanoTime();
    merges.add((d0 - t0) / 1e6);
    long c0 = CPU.isCurrentThreadCpuTimeSupported() ? CPU.getCurrentThreadCpuTime() : -1;
    Schedule schedule = policy.schedule(model.state(), now);
    long p0 = System.nanoTime();
    decisions.add((p0 - d0) / 1e6);
    if (c0 >= 0) {
      decisionsCpu.add((CPU.getCurrentThreadCpuTime() - c0) / 1e6);
    }
    long epoch = round + 1;
    int ports = model.hosts().size();
    allocatedSend = new double[ports];
    allocatedReceive = new double[ports];
    pusher.push(
        schedule,
        model,
        removed,
        sessions,
        allocatedSend,
        allocatedReceive,
        epoch,
        policy.name(),
        policy.type());
    pushes.add((System.nanoTime() - p0) / 1e6);
    flowsEnded.addAndGet(removed.size());
    removed.clear();
    traffic(t0);
    for (int port : model.releaseUnused()) {
      if (port < sendRate.length) {
        sendRate[port] = 0;
        receiveRate[port] = 0;
      }
    }
    flowCount = model.state().flows().size();
    coflowCount = model.state().coflows().size();
    round = epoch;
  }

  private void traffic(long t0) {
    int ports = model.hosts().size();
    double seconds = Math.max(1e-3, (t0 - lastRoundNanos) / 1e9);
    lastRoundNanos = t0;
    double[][] bytes = model.takeTraffic();
    if (sendRate.length != ports) {
      sendRate = java.util.Arrays.copyOf(sendRate, ports);
      receiveRate = java.util.Arrays.copyOf(receiveRate, ports);
    }
    for (int p = 0; p < ports && p < bytes[0].length; p++) {
      sendRate[p] += TRAFFIC_SMOOTHING * (bytes[0][p] / seconds - sendRate[p]);
      receiveRate[p] += TRAFFIC_SMOOTHING * (bytes[1][p] / seconds - receiveRate[p]);
    }
  }

  /** What {@link #inspect} sees: the loop's state between two rounds. */
  final class LoopView {
    ModelSync model() {
      return model;
    }

    SchedulingPolicy policy() {
      return policy;
    }

    long round() {
      return round;
    }

    double now() {
      return (System.nanoTime() - startNanos) / 1e9;
    }

    double measuredSend(int port) {
      return port < sendRate.length ? sendRate[port] : 0;
    }

    double measuredReceive(int port) {
      return port < receiveRate.length ? receiveRate[port] : 0;
    }

    double allocatedSend(int port) {
      return port < allocatedSend.length ? allocatedSend[port] : 0;
    }

    double allocatedReceive(int port) {
      return port < allocatedReceive.length ? allocatedReceive[port] : 0;
    }
  }
}
