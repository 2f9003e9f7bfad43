package org.coflow.courier.flow;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.PolicyType;
import org.coflow.api.proto.v1.ScheduleUpdate;

/**
 * The master's schedule as an agent holds it. The master names flows by id and sends each agent
 * what changed since its last update (or, after a reconnect or a policy switch, the whole
 * schedule); the agent's fetching side keeps schedules by flow key (a coflow, a source host). This
 * turns one into the other and applies only what an update carries: a full update replaces
 * everything, and the flows it leaves out lose their pace; otherwise removals first, then new and
 * changed entries. A newer flow of the same coflow and host can take a key over from an older one
 * still scheduled; the older one's removal then leaves the key's schedule alone. Thread-safe.
 */
public final class MasterSchedule {
  /** Where the decisions go: the agent's fetching side. */
  public interface Target {
    /** The priority and, for RATE policies, the pace of a flow's blocks. */
    void setSchedule(FlowKey key, PairSchedule schedule);

    /** A flow the master no longer schedules: it keeps its priority, loses its pace. */
    void unschedule(FlowKey key);

    /** After a full schedule: every flow it does not cover loses its pace. */
    void unpaceAllBut(Set<FlowKey> scheduled);

    /** The master went away: every flow back to priority 0, unpaced. */
    void clearSchedules();
  }

  private final Target target;
  private final LongFunction<FlowKey> keyOf;

  /** Each scheduled flow id's key. */
  private final Map<Long, FlowKey> keyById = new HashMap<>();

  /** The id that last set each key's schedule. */
  private final Map<FlowKey, Long> scheduledBy = new HashMap<>();

  /**
   * @param keyOf a flow id's key, or null for a flow this agent does not fetch (or no longer
   *     knows): its entries are skipped
   */
  public MasterSchedule(Target target, LongFunction<FlowKey> keyOf) {
    this.target = target;
    this.keyOf = keyOf;
  }

  /** Applies one update from the master. */
  public synchronized void apply(ScheduleUpdate u) {
    boolean rates = u.getPolicyType() == PolicyType.POLICY_TYPE_RATE;
    if (u.getFull()) {
      keyById.clear();
      scheduledBy.clear();
    }
    for (long id : u.getRemovedFlowsList()) {
      FlowKey key = keyById.remove(id);
      if (key != null && scheduledBy.remove(key, id)) {
        target.unschedule(key);
      }
    }
    for (FlowSchedule f : u.getFlowsList()) {
      FlowKey key = keyOf.apply(f.getFlowId());
      if (key == null) {
        continue;
      }
      target.setSchedule(key, PairSchedule.of(f.getPriority(), rates ? f.getRateBytesPerSec() : 0));
      keyById.put(f.getFlowId(), key);
      Long before = scheduledBy.put(key, f.getFlowId());
      if (before != null && before != f.getFlowId()) {
        keyById.remove(before); // taken over: its removal must not end the newer flow's schedule
      }
    }
    if (u.getFull()) {
      target.unpaceAllBut(scheduledBy.keySet());
    }
  }

  /** Forgets the schedule: a schedule from a master the agent cannot reach is stale. */
  public synchronized void clear() {
    keyById.clear();
    scheduledBy.clear();
    target.clearSchedules();
  }

  /** The flow keys the schedule covers now. */
  public synchronized Set<FlowKey> scheduled() {
    return Set.copyOf(scheduledBy.keySet());
  }
}
