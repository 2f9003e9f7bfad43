package org.coflow.courier.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.PolicyType;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.junit.jupiter.api.Test;

/**
 * How an agent applies the master's updates: a full schedule replaces everything, a delta applies
 * removals then entries, a flow that took a key over keeps it when the older flow is removed, and
 * the fetching side hears only what changed.
 */
class MasterScheduleTest {
  private static final FlowKey A = FlowKey.of("app/0", "host-a");
  private static final FlowKey B = FlowKey.of("app/0", "host-b");
  private static final FlowKey C = FlowKey.of("app/1", "host-a");

  /** The fetching side's schedule as the calls leave it, and the calls in order. */
  private static final class Fetching implements MasterSchedule.Target {
    final Map<FlowKey, PairSchedule> schedules = new HashMap<>();
    final List<String> calls = new ArrayList<>();

    @Override
    public void setSchedule(FlowKey key, PairSchedule s) {
      schedules.put(key, s);
      calls.add("set " + key.peer() + " " + key.coflow() + " " + s.priority() + "/" + s.rate());
    }

    @Override
    public void unschedule(FlowKey key) {
      PairSchedule s = schedules.remove(key);
      calls.add("unschedule " + key.peer() + " " + key.coflow() + (s == null ? " (unknown)" : ""));
    }

    @Override
    public void unpaceAllBut(Set<FlowKey> scheduled) {
      schedules.keySet().retainAll(scheduled);
      TreeSet<String> names = new TreeSet<>();
      scheduled.forEach(k -> names.add(k.peer() + " " + k.coflow()));
      calls.add("keep " + names);
    }

    @Override
    public void clearSchedules() {
      schedules.clear();
      calls.add("clear");
    }
  }

  /** Flow ids this agent fetches: 1 = A, 2 = B, 3 = C, 4 = A again (a newer flow). */
  private static final Map<Long, FlowKey> KNOWN = Map.of(1L, A, 2L, B, 3L, C, 4L, A);

  private final Fetching fetching = new Fetching();
  private final MasterSchedule schedule = new MasterSchedule(fetching, KNOWN::get);

  private static FlowSchedule flow(long id, int priority, double rate) {
    return FlowSchedule.newBuilder()
        .setFlowId(id)
        .setPriority(priority)
        .setRateBytesPerSec(rate)
        .build();
  }

  private static ScheduleUpdate.Builder update(boolean full, PolicyType type) {
    return ScheduleUpdate.newBuilder().setFull(full).setPolicyType(type);
  }

  @Test
  void aFullScheduleReplacesEverythingAndUnpacesWhatItLeavesOut() {
    schedule.apply(
        update(true, PolicyType.POLICY_TYPE_RATE)
            .addFlows(flow(1, 0, 1000))
            .addFlows(flow(2, 1, 2000))
            .addFlows(flow(99, 0, 5)) // not fetched here: skipped
            .build());
    assertEquals(
        List.of(
            "set host-a app/0 0/1000.0",
            "set host-b app/0 1/2000.0",
            "keep [host-a app/0, host-b app/0]"),
        fetching.calls);
    assertEquals(Set.of(A, B), schedule.scheduled());

    fetching.calls.clear();
    schedule.apply(update(true, PolicyType.POLICY_TYPE_RATE).addFlows(flow(3, 0, 500)).build());
    assertEquals(List.of("set host-a app/1 0/500.0", "keep [host-a app/1]"), fetching.calls);
    assertEquals(Set.of(C), schedule.scheduled());
    assertEquals(Set.of(C), fetching.schedules.keySet());
  }

  @Test
  void aDeltaAppliesRemovalsThenEntriesAndNothingElse() {
    schedule.apply(
        update(true, PolicyType.POLICY_TYPE_RATE)
            .addFlows(flow(1, 0, 1000))
            .addFlows(flow(2, 1, 2000))
            .build());
    fetching.calls.clear();
    schedule.apply(
        update(false, PolicyType.POLICY_TYPE_RATE)
            .addRemovedFlows(2)
            .addRemovedFlows(2) // a repeated removal is no second call
            .addRemovedFlows(77) // never scheduled: nothing to do
            .addFlows(flow(1, 0, 1500))
            .build());
    assertEquals(List.of("unschedule host-b app/0", "set host-a app/0 0/1500.0"), fetching.calls);
    assertEquals(Set.of(A), schedule.scheduled());

    // An id can leave and come back in one update: removed first, then set again.
    fetching.calls.clear();
    schedule.apply(
        update(false, PolicyType.POLICY_TYPE_RATE)
            .addRemovedFlows(1)
            .addFlows(flow(1, 2, 700))
            .build());
    assertEquals(List.of("unschedule host-a app/0", "set host-a app/0 2/700.0"), fetching.calls);
    assertEquals(PairSchedule.of(2, 700), fetching.schedules.get(A));
  }

  @Test
  void aNewerFlowThatTookTheKeyOverKeepsItWhenTheOlderOneIsRemoved() {
    schedule.apply(update(true, PolicyType.POLICY_TYPE_RATE).addFlows(flow(1, 0, 1000)).build());
    schedule.apply(update(false, PolicyType.POLICY_TYPE_RATE).addFlows(flow(4, 0, 3000)).build());
    fetching.calls.clear();

    schedule.apply(update(false, PolicyType.POLICY_TYPE_RATE).addRemovedFlows(1).build());
    assertEquals(List.of(), fetching.calls);
    assertEquals(PairSchedule.of(0, 3000), fetching.schedules.get(A));

    schedule.apply(update(false, PolicyType.POLICY_TYPE_RATE).addRemovedFlows(4).build());
    assertEquals(List.of("unschedule host-a app/0"), fetching.calls);
    assertEquals(Set.of(), schedule.scheduled());
  }

  @Test
  void orderPoliciesSetPrioritiesWithoutPaces() {
    schedule.apply(
        update(true, PolicyType.POLICY_TYPE_ORDER)
            .addFlows(flow(1, 3, 1e6)) // the rate an ORDER policy sends is an estimate, not a pace
            .build());
    assertEquals(PairSchedule.of(3, 0), fetching.schedules.get(A));
  }

  @Test
  void aLostMasterClearsTheScheduleAndItsOldIdsNoLongerCount() {
    schedule.apply(update(true, PolicyType.POLICY_TYPE_RATE).addFlows(flow(1, 0, 1000)).build());
    schedule.clear();
    assertEquals(Set.of(), schedule.scheduled());
    fetching.calls.clear();
    schedule.apply(update(false, PolicyType.POLICY_TYPE_RATE).addRemovedFlows(1).build());
    assertEquals(List.of(), fetching.calls);
  }
}
