package org.coflow.master.service;

import io.grpc.Status;
import java.util.List;
import java.util.Map;
import org.coflow.api.model.PolicyType;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.master.policy.Schedule;

/**
 * Turns a round's schedule into per-agent updates holding only what changed for each agent: its
 * flows' rates and priorities, and the summed rate and best priority per destination host of the
 * flows its host sends (the unified flows of Courier Alg. 2). An agent whose stream is new, or
 * could not take the previous update, gets its whole schedule instead.
 *
 * <p>Scheduling thread only.
 */
final class SchedulePusher {
  private final double tolerance;

  /** Counters of the last {@link #push}. */
  long updatesSent;
  long entriesSent;

  SchedulePusher(double tolerance) {
    this.tolerance = tolerance;
  }

  /**
   * @param active records with flows in the model, indexed consistently with {@code schedule}
   * @param removed records whose flows left the model this round
   * @param sessions every live session, by host id
   */
  void push(Schedule schedule, List<FlowRecord> active, List<FlowRecord> removed,
      Map<String, AgentSession> sessions, long epoch, String policy, PolicyType type) {
    updatesSent = 0;
    entriesSent = 0;
    for (AgentSession s : sessions.values()) {
      s.roundPairs.clear();
      ScheduleStream stream = s.stream;
      if (stream != s.pushedTo) {
        s.pushedTo = stream;
        s.needFull = true;
      }
    }
    for (FlowRecord r : active) {
      int i = r.flow.index();
      r.rate = schedule.rate(i);
      r.priority = schedule.priority(i);
      AgentSession owner = r.session;
      if (!owner.closed && (owner.needFull || changed(r))) {
        owner.buffer.flow(r.flowId, r.rate, r.priority);
        r.pushed = true;
        r.pushedRate = r.rate;
        r.pushedPriority = r.priority;
      }
      AgentSession sender = sessions.get(r.srcHost);
      if (sender != null) {
        double[] pair = sender.roundPairs.get(r.dstHost);
        if (pair == null) {
          sender.roundPairs.put(r.dstHost, new double[] {r.rate, r.priority});
        } else {
          pair[0] += r.rate;
          pair[1] = Math.min(pair[1], r.priority);
        }
      }
    }
    for (FlowRecord r : removed) {
      if (r.pushed && !r.session.needFull && !r.session.closed) {
        r.session.buffer.removedFlow(r.flowId);
      }
      r.pushed = false;
    }
    for (AgentSession s : sessions.values()) {
      if (s.needFull) {
        sendFull(s, epoch, policy, type);
      } else {
        diffPairs(s);
        if (s.buffer.entries() > 0) {
          send(s, s.buffer.take(), false, epoch, policy, type);
        }
      }
    }
  }

  /** Ends the stream of a session that closed, replaced or expired. */
  void closed(AgentSession s) {
    ScheduleStream stream = s.stream;
    if (stream != null) {
      stream.close(Status.NOT_FOUND.withDescription("session " + s.id + " " + s.closeReason
          + ": open a new session"));
    }
    s.buffer.clear();
  }

  private boolean changed(FlowRecord r) {
    if (!r.pushed || r.priority != r.pushedPriority) {
      return true;
    }
    double diff = Math.abs(r.rate - r.pushedRate);
    return tolerance == 0 ? diff != 0 : diff > tolerance * r.pushedRate || r.rate == 0 && diff != 0;
  }

  private void diffPairs(AgentSession s) {
    for (Map.Entry<String, double[]> e : s.roundPairs.entrySet()) {
      double[] now = e.getValue();
      double[] before = s.pushedPairs.get(e.getKey());
      if (before == null || before[1] != now[1] || pairRateChanged(before[0], now[0])) {
        s.buffer.pair(e.getKey(), now[0], (int) now[1]);
        s.pushedPairs.put(e.getKey(), now.clone());
      }
    }
    s.pushedPairs.keySet().removeIf(dst -> {
      if (!s.roundPairs.containsKey(dst)) {
        s.buffer.removedPair(dst);
        return true;
      }
      return false;
    });
  }

  private boolean pairRateChanged(double before, double now) {
    double diff = Math.abs(now - before);
    return tolerance == 0 ? diff != 0 : diff > tolerance * before || now == 0 && diff != 0;
  }

  /** Sends the buffer, which holds every flow of {@code s} when it needs a full schedule. */
  private void sendFull(AgentSession s, long epoch, String policy, PolicyType type) {
    s.pushedPairs.clear();
    for (Map.Entry<String, double[]> e : s.roundPairs.entrySet()) {
      s.buffer.pair(e.getKey(), e.getValue()[0], (int) e.getValue()[1]);
      s.pushedPairs.put(e.getKey(), e.getValue().clone());
    }
    if (send(s, s.buffer.take(), true, epoch, policy, type)) {
      s.needFull = false;
    }
  }

  private boolean send(AgentSession s, ScheduleUpdate.Builder b, boolean full, long epoch,
      String policy, PolicyType type) {
    ScheduleStream stream = s.pushedTo;
    int entries = b.getFlowsCount() + b.getRemovedFlowsCount() + b.getPairsCount()
        + b.getRemovedPairsCount();
    ScheduleUpdate update = b.setEpoch(epoch).setPolicy(policy).setPolicyType(proto(type))
        .setFull(full).build();
    if (stream != null && stream.trySend(update)) {
      updatesSent++;
      entriesSent += entries;
      return true;
    }
    s.needFull = true;
    return false;
  }

  static org.coflow.api.proto.v1.PolicyType proto(PolicyType type) {
    return type == PolicyType.ORDER ? org.coflow.api.proto.v1.PolicyType.POLICY_TYPE_ORDER
        : org.coflow.api.proto.v1.PolicyType.POLICY_TYPE_RATE;
  }
}
