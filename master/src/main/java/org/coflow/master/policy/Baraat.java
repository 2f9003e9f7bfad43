package org.coflow.master.policy;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.PolicyType;

/**
 * Baraat's FIFO with Limited Multiplexing (FIFO-LM, seed 004), non-clairvoyant.
 *
 * <p>Coflows (Baraat's tasks) are served in arrival order, one priority class each, strictly
 * prioritised with leftovers passed down. When a coflow becomes heavy (has sent more than the
 * threshold H) it shares its class with the coflow right after it, so small coflows behind a heavy
 * one keep moving while the heavy one is not starved.
 *
 * <p>Decisions where the paper is vague ({@code reference/seeds/004-baraat.md} §6):
 *
 * <ul>
 *   <li>Task = coflow; task id = arrival order.
 *   <li>Heaviness uses the coflow's cluster-wide bytes sent, seen immediately (the master has the
 *       global counter Baraat's switches approximate per link); once heavy, always heavy.
 *   <li>H = the {@code percentile} (default 80th, the low end of the paper's best 80-90th range) of
 *       the total sizes of coflows that completed so far in this run: "history" is what the cluster
 *       has seen, never the future. Until {@code minHistory} coflows have completed, H is {@code
 *       initialThreshold}.
 *   <li>Chaining: a class grows while its last member is heavy, so k consecutive heavy coflows and
 *       the next light one share a class (degree = heavies + 1).
 *   <li>Inside a class, flows share max-min fairly per flow (the paper's per-flow fairness).
 * </ul>
 */
public final class Baraat extends AbstractPolicy {
  private final double percentile;
  private final int minHistory;
  private final double initialThreshold;
  private final Map<Coflow, Boolean> seen = new IdentityHashMap<>();
  private double[] history = new double[64];
  private int historySize;
  private double threshold;

  public Baraat(double percentile, int minHistory, double initialThreshold) {
    if (!(percentile > 0 && percentile < 1)) {
      throw new IllegalArgumentException(
          "heavy-task percentile must be in (0, 1), got " + percentile);
    }
    this.percentile = percentile;
    this.minHistory = minHistory;
    this.initialThreshold = initialThreshold;
    this.threshold = initialThreshold;
  }

  @Override
  public String name() {
    return "baraat";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  /** The current heavy-task threshold H in bytes. */
  public double threshold() {
    return threshold;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    learnFromCompleted(state);
    List<Coflow> coflows = state.coflows();
    int rank = 0;
    int i = 0;
    while (i < coflows.size()) {
      allocator().clearGroup();
      Coflow c;
      do {
        c = coflows.get(i++);
        appendCoflow(c, rank, schedule);
        allocator().offer(c, budget);
      } while (isHeavy(c) && i < coflows.size());
      // A chain of heavy coflows is many flows on shared (sender, receiver) pairs: water-filled by
      // pair when that halves it, with the same rates.
      allocator().fillGroupByPair(budget, schedule);
      rank++;
    }
  }

  private boolean isHeavy(Coflow c) {
    return c.bytesSent() > threshold;
  }

  private void learnFromCompleted(ClusterState state) {
    boolean changed = false;
    for (var it = seen.keySet().iterator(); it.hasNext(); ) {
      Coflow c = it.next();
      if (c.unfinishedFlows() == 0) {
        it.remove();
        if (historySize == history.length) {
          history = Arrays.copyOf(history, 2 * historySize);
        }
        history[historySize++] = c.totalBytes();
        changed = true;
      }
    }
    for (Coflow c : state.coflows()) {
      seen.putIfAbsent(c, Boolean.TRUE);
    }
    if (changed && historySize >= minHistory) {
      double[] sorted = Arrays.copyOf(history, historySize);
      Arrays.sort(sorted);
      int k = (int) Math.ceil(percentile * historySize) - 1;
      threshold = sorted[Math.max(0, Math.min(historySize - 1, k))];
    }
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    double[] rates = schedule.coflowRates(state);
    double next = Double.POSITIVE_INFINITY;
    for (Coflow c : state.coflows()) {
      if (!isHeavy(c)) {
        double rate = rates[c.index()];
        if (rate > 0) {
          // Just past H, so that the strict comparison sees the coflow as heavy.
          next = Math.min(next, now + (threshold - c.bytesSent()) / rate * (1 + 1e-12) + 1e-9);
        }
      }
    }
    return next;
  }
}
