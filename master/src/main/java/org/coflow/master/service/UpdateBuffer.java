package org.coflow.master.service;

import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.ScheduleUpdate;

/** The entries of one agent's next schedule update, gathered during a round. */
final class UpdateBuffer {
  private ScheduleUpdate.Builder builder = ScheduleUpdate.newBuilder();
  private int entries;

  void flow(long flowId, double rate, int priority) {
    builder.addFlows(
        FlowSchedule.newBuilder().setFlowId(flowId).setRateBytesPerSec(rate).setPriority(priority));
    entries++;
  }

  void removedFlow(long flowId) {
    builder.addRemovedFlows(flowId);
    entries++;
  }

  int entries() {
    return entries;
  }

  /** The gathered entries as an update, and a fresh buffer. */
  ScheduleUpdate.Builder take() {
    ScheduleUpdate.Builder b = builder;
    builder = ScheduleUpdate.newBuilder();
    entries = 0;
    return b;
  }

  void clear() {
    builder.clear();
    entries = 0;
  }
}
