package org.coflow.core.policy;

import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;

/**
 * Discretised coflow queues by bytes sent (Aalo's D-CLAS, also used by Graviton and CODA): queue
 * {@code i} holds coflows that have sent more than {@code first * mult^(i-1)} bytes and at most
 * {@code first * mult^i}; the last queue is unbounded. Coflows only ever move down.
 *
 * <p>Coordination interval Δ: the master learns bytes sent from reports every Δ, so membership is
 * re-evaluated only when the clock has entered a new Δ period since the last evaluation (with the
 * bytes known at that moment). Δ = 0 means continuous, exact knowledge.
 */
final class QueueTracker {
  private final Thresholds ladder;
  private final double delta;
  private final Map<Coflow, Integer> queueOf = new IdentityHashMap<>();
  private long period = Long.MIN_VALUE;

  QueueTracker(int queues, double firstThreshold, double multiplier, double deltaSeconds) {
    this.ladder = new Thresholds(queues, firstThreshold, multiplier);
    this.delta = deltaSeconds;
  }

  int queues() {
    return ladder.levels();
  }

  /** Queue of a coflow that has sent {@code bytes}: the number of thresholds strictly below it. */
  int queueFor(double bytes) {
    return ladder.level(bytes);
  }

  /** Re-evaluates membership if a new coordination period began; forgets finished coflows. */
  void refresh(ClusterState state, double now) {
    long p = delta > 0 ? (long) Math.floor(now / delta) : Long.MAX_VALUE;
    boolean sync = delta <= 0 || p != period;
    period = p;
    for (Iterator<Coflow> it = queueOf.keySet().iterator(); it.hasNext(); ) {
      if (it.next().unfinishedFlows() == 0) {
        it.remove();
      }
    }
    for (Coflow c : state.coflows()) {
      Integer q = queueOf.get(c);
      if (q == null) {
        queueOf.put(c, queueFor(c.bytesSent()));
      } else if (sync) {
        queueOf.put(c, Math.max(q, queueFor(c.bytesSent())));
      }
    }
  }

  int queue(Coflow c) {
    Integer q = queueOf.get(c);
    return q != null ? q : queueFor(c.bytesSent());
  }

  /**
   * When the master will next see {@code c} leave its queue, if it keeps sending at {@code
   * aggregateRate}: the crossing time, rounded up to the next coordination instant.
   */
  double nextDemotion(Coflow c, double aggregateRate, double now) {
    int q = queue(c);
    if (ladder.isLast(q) || aggregateRate <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    double cross = now + Math.max(0, ladder.upper(q) - c.bytesSent()) / aggregateRate;
    if (delta <= 0) {
      return cross;
    }
    double tick = Math.ceil(cross / delta) * delta;
    return tick <= now ? (Math.floor(now / delta) + 1) * delta : tick;
  }
}
