package org.coflow.courier.fetch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.coflow.courier.flow.FlowKey;
import org.coflow.courier.flow.MasterSchedule;
import org.coflow.courier.flow.PairSchedule;

/**
 * The priorities and paces of the blocks an agent fetches. A coflow's priority orders its blocks
 * among all it fetches (the local policy, or the master's ORDER policies); a flow's schedule (a
 * coflow's blocks from one host) is the master's priority and, for RATE policies, the pace the
 * serving agent holds over all the connections from this host together. A change reaches the
 * connections already carrying the blocks and every block requested after it. Thread-safe.
 */
public final class FetchSchedules implements MasterSchedule.Target {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(FetchSchedules.class);

  private final Map<String, Integer> priorities = new ConcurrentHashMap<>();

  /** The master's decision per flow (coflow, source host). */
  private final Map<FlowKey, PairSchedule> schedules = new ConcurrentHashMap<>();

  /** Every data connection, after planning again (a unified flow's order may have changed). */
  private final Supplier<List<PeerConnection>> replanned;

  /** The data connections that carry a flow's blocks. */
  private final Function<FlowKey, List<PeerConnection>> carrying;

  FetchSchedules(
      Supplier<List<PeerConnection>> replanned, Function<FlowKey, List<PeerConnection>> carrying) {
    this.replanned = replanned;
    this.carrying = carrying;
  }

  /** A coflow's priority: 0 unless set. */
  int priority(String coflowId) {
    return priorities.getOrDefault(coflowId, 0);
  }

  /** What a new block of {@code key} is requested with: its flow's schedule, else its priority. */
  PairSchedule forRequest(FlowKey key) {
    PairSchedule s = schedules.get(key);
    return s != null ? s : PairSchedule.of(priority(key.coflow()), 0);
  }

  /** A coflow's priority (lower first) for its new requests and, from now on, its open streams. */
  public void setPriority(String coflowId, int priority) {
    Integer old = priorities.put(coflowId, priority);
    if (old != null && old == priority) {
      return;
    }
    for (PeerConnection c : replanned.get()) {
      c.prioritize(coflowId, priority, 0);
    }
  }

  /**
   * The master's decision for the blocks of flow {@code key} (a coflow, from a source host): a
   * priority and, for RATE policies, a pace, which the serving agent enforces over all the
   * connections from this host together.
   */
  @Override
  public void setSchedule(FlowKey key, PairSchedule next) {
    PairSchedule old = schedules.put(key, next);
    if (next.equals(old)) {
      return;
    }
    LOG.debug(
        "schedule coflow={} remote={} priority={} rate={}",
        key.coflow(),
        key.peer(),
        next.priority(),
        next.rate());
    for (PeerConnection c : carrying.apply(key)) {
      c.prioritize(key.coflow(), next.priority(), next.rate());
    }
  }

  /**
   * Flows the master no longer schedules (ended, or their reported bytes ran out while a last block
   * was still coming) keep their priority but lose their pace, and are forgotten: a rate nobody
   * renews must not hold a flow back on a link it may now have to itself.
   *
   * @param scheduled the flows the master's schedule covers
   */
  @Override
  public void unpaceAllBut(Set<FlowKey> scheduled) {
    List<FlowKey> stale = new ArrayList<>();
    for (FlowKey k : schedules.keySet()) {
      if (!scheduled.contains(k)) {
        stale.add(k);
      }
    }
    for (FlowKey k : stale) {
      unschedule(k);
    }
  }

  /**
   * A flow the master no longer schedules keeps its priority but loses its pace, and is forgotten
   * (see {@link #unpaceAllBut}).
   */
  @Override
  public void unschedule(FlowKey k) {
    PairSchedule old = schedules.get(k);
    if (old != null && old.paced()) {
      setSchedule(k, old.unpaced());
    }
    schedules.remove(k);
  }

  /** Forgets every schedule (the master went away): all coflows back to priority 0, unpaced. */
  @Override
  public void clearSchedules() {
    for (FlowKey k : new ArrayList<>(schedules.keySet())) {
      setSchedule(k, PairSchedule.NONE);
    }
    schedules.clear();
  }
}
