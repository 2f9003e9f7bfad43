package org.coflow.courier.adapt;

import io.netty.channel.EventLoop;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.coflow.courier.fetch.FetchService;

/**
 * Runs {@link AdaptiveMaxNum} for one agent: every interval it measures the agent's goodput from
 * its peers, the host's receive-side loss signal from the kernel's counters ({@link TcpCounters},
 * when readable) and whether the budget binds, and sets the fetch service's budget.
 */
public final class MaxNumController implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(MaxNumController.class);

  private final FetchService fetcher;
  private final AdaptiveMaxNum rule;
  private final TcpCounters counters;
  private final long intervalMillis;
  private final ScheduledFuture<?> task;
  private long lastBytes;
  private long lastNanos;
  private Map<String, Long> lastCounters;
  private volatile int changes;

  private MaxNumController(
      FetchService fetcher,
      AdaptiveMaxNum rule,
      TcpCounters counters,
      long intervalMillis,
      EventLoop loop) {
    this.fetcher = fetcher;
    this.rule = rule;
    this.counters = counters.available() ? counters : null;
    this.intervalMillis = intervalMillis;
    this.lastBytes = fetcher.bytesReceived();
    this.lastNanos = System.nanoTime();
    this.lastCounters = snapshot();
    this.task =
        loop.scheduleAtFixedRate(this::tick, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  /** Starts adapting {@code fetcher}'s budget, from {@code rule}'s first one. */
  public static MaxNumController start(
      FetchService fetcher, AdaptiveMaxNum rule, long intervalMillis, EventLoop loop) {
    fetcher.maxNum(rule.budget());
    MaxNumController c =
        new MaxNumController(fetcher, rule, TcpCounters.local(), intervalMillis, loop);
    if (c.counters == null) {
      LOG.info(
          "adaptive MaxNum: the kernel's TCP counters cannot be read here (/proc/self/net): the "
              + "budget follows goodput alone");
    }
    return c;
  }

  private Map<String, Long> snapshot() {
    if (counters == null) {
      return null;
    }
    try {
      return counters.read();
    } catch (IOException e) {
      return null;
    }
  }

  private void tick() {
    long now = System.nanoTime();
    long bytes = fetcher.bytesReceived();
    double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
    double goodput = (bytes - lastBytes) / seconds;
    Map<String, Long> c = snapshot();
    double loss = Double.NaN;
    if (c != null && lastCounters != null) {
      long in = delta(c, lastCounters, "InSegs");
      long ofo = delta(c, lastCounters, "TCPOFOQueue");
      loss = in > 0 ? (double) ofo / in : 0;
    }
    lastBytes = bytes;
    lastNanos = now;
    lastCounters = c;
    int before = rule.budget();
    int next = rule.next(new AdaptiveMaxNum.Sample(goodput, loss, fetcher.budgetBinds()));
    if (next != before) {
      changes++;
      LOG.debug(
          "adaptive MaxNum {} -> {} (goodput {} B/s, loss signal {}, every {} ms)",
          before,
          next,
          (long) goodput,
          loss,
          intervalMillis);
      fetcher.maxNum(next);
    }
  }

  private static long delta(Map<String, Long> now, Map<String, Long> before, String name) {
    return now.getOrDefault(name, 0L) - before.getOrDefault(name, 0L);
  }

  /** How often the budget changed. */
  public int changes() {
    return changes;
  }

  @Override
  public void close() {
    task.cancel(false);
  }
}
