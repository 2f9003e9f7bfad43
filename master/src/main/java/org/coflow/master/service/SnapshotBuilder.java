package org.coflow.master.service;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;

/** Builds a {@link MasterSnapshot} on the scheduling thread. */
final class SnapshotBuilder {
  private SnapshotBuilder() {}

  static MasterSnapshot build(
      SchedulerLoop.LoopView view,
      List<MasterSnapshot.Agent> agents,
      int maxFlowsPerCoflow,
      double decisionP50,
      double decisionP99,
      double behindMs,
      long intervalMs) {
    ModelSync model = view.model();
    List<MasterSnapshot.Host> hosts = new ArrayList<>();
    for (int p = 0; p < model.hosts().size(); p++) {
      if (model.hosts().get(p) == null) {
        continue;
      }
      hosts.add(
          new MasterSnapshot.Host(
              model.hosts().get(p),
              model.state().fabric().uplink(p),
              model.state().fabric().downlink(p),
              view.allocatedSend(p),
              view.allocatedReceive(p),
              view.measuredSend(p),
              view.measuredReceive(p)));
    }
    Map<Coflow, List<FlowRecord>> byCoflow = new HashMap<>();
    for (FlowRecord r : model.active()) {
      byCoflow.computeIfAbsent(r.flow.coflow(), c -> new ArrayList<>()).add(r);
    }
    double now = view.now();
    List<MasterSnapshot.CoflowView> coflows = new ArrayList<>();
    for (Coflow c : model.state().coflows()) {
      List<FlowRecord> records = byCoflow.getOrDefault(c, List.of());
      records.sort(
          Comparator.comparingInt((FlowRecord r) -> r.priority)
              .thenComparing(r -> r.session.hostId)
              .thenComparingLong(r -> r.flowId));
      int priority = Integer.MAX_VALUE;
      double rate = 0;
      List<MasterSnapshot.FlowView> flows = new ArrayList<>();
      for (FlowRecord r : records) {
        priority = Math.min(priority, r.priority);
        rate += r.rate;
        if (flows.size() < maxFlowsPerCoflow) {
          Flow f = r.flow;
          flows.add(
              new MasterSnapshot.FlowView(
                  r.session.hostId,
                  r.flowId,
                  r.srcHost,
                  r.dstHost,
                  f.sent(),
                  f.size(),
                  r.rate,
                  r.priority));
        }
      }
      RegisteredCoflow reg = model.registration(c.id());
      coflows.add(
          new MasterSnapshot.CoflowView(
              c.id(),
              reg != null ? reg.name : "",
              now - c.arrival(),
              c.bytesSent(),
              c.totalBytes(),
              c.sizesKnown(),
              c.activeFlows().size(),
              c.senders().size(),
              c.receivers().size(),
              c.weight(),
              records.isEmpty() ? 0 : priority,
              rate,
              flows,
              records.size() - flows.size()));
    }
    coflows.sort(Comparator.comparingInt(MasterSnapshot.CoflowView::priority));
    return new MasterSnapshot(
        view.policy().name(),
        view.policy().type().name(),
        intervalMs,
        view.round(),
        decisionP50,
        decisionP99,
        behindMs,
        agents,
        hosts,
        coflows);
  }
}
