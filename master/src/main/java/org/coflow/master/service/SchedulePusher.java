package org.coflow.master.service;

import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.core.model.PolicyType;
import org.coflow.core.policy.Schedule;

/**
 * Turns a round's schedule into per-agent updates holding only what changed for each agent: the
 * rates and priorities of the flows it reported. An agent whose stream is new, or could not take
 * the previous update, gets its whole schedule instead.
 *
 * <p>Scheduling thread only.
 */
final class SchedulePusher {
  private final double tolerance;

  private final Executor sender;
  private final List<Runnable> outbox = new ArrayList<>();

  /** Rounds of updates the sending thread may have queued before new ones are dropped. */
  private static final int MAX_BACKLOG = 2;

  private final java.util.concurrent.atomic.AtomicInteger backlog =
      new java.util.concurrent.atomic.AtomicInteger();

  /** Rounds whose updates were dropped because the sending thread was behind. */
  final AtomicLong dropped = new AtomicLong();

  /** Updates and entries handed to the transport. */
  final AtomicLong updatesSent = new AtomicLong();

  final AtomicLong entriesSent = new AtomicLong();

  /**
   * @param sender runs the sends of a round, in order, off the scheduling thread (serialising and
   *     writing a round's updates must not delay the next decision)
   */
  SchedulePusher(double tolerance, Executor sender) {
    this.tolerance = tolerance;
    this.sender = sender;
  }

  /**
   * @param model the model {@code schedule} was computed on (its active records and host names)
   * @param removed records whose flows left the model this round
   * @param sessions every live session (several shared-host sessions may name one host)
   * @param allocatedSend receives the summed rates out of each port (length = ports)
   * @param allocatedReceive receives the summed rates into each port
   */
  void push(
      Schedule schedule,
      ModelSync model,
      List<FlowRecord> removed,
      List<AgentSession> sessions,
      double[] allocatedSend,
      double[] allocatedReceive,
      long epoch,
      String policy,
      PolicyType type) {
    for (AgentSession s : sessions) {
      ScheduleStream stream = s.stream;
      if (stream != s.pushedTo || s.sendFailed) {
        s.pushedTo = stream;
        s.sendFailed = false;
        s.needFull = true;
      }
    }
    List<FlowRecord> active = model.active();
    for (int i = 0, n = active.size(); i < n; i++) {
      FlowRecord r = active.get(i);
      double rate = schedule.rate(i);
      int priority = schedule.priority(i);
      r.rate = rate;
      r.priority = priority;
      AgentSession owner = r.session;
      if (!owner.closed && (owner.needFull || changed(r))) {
        owner.buffer.flow(r.flowId, rate, priority);
        r.pushed = true;
        r.pushedRate = rate;
        r.pushedPriority = priority;
      }
      allocatedSend[r.srcPort] += rate;
      allocatedReceive[r.dstPort] += rate;
    }
    for (FlowRecord r : removed) {
      if (r.pushed && !r.session.needFull && !r.session.closed) {
        r.session.buffer.removedFlow(r.flowId);
      }
      r.pushed = false;
    }
    for (AgentSession s : sessions) {
      if (s.needFull) {
        if (send(s, s.buffer.take(), true, epoch, policy, type)) {
          s.needFull = false;
        }
      } else if (s.buffer.entries() > 0) {
        send(s, s.buffer.take(), false, epoch, policy, type);
      }
    }
    if (!outbox.isEmpty()) {
      List<Runnable> batch = new ArrayList<>(outbox);
      outbox.clear();
      if (backlog.get() >= MAX_BACKLOG) {
        // The transport is slower than the rounds: drop this round's updates rather than queue
        // stale ones; their agents get full schedules once the sender catches up.
        for (AgentSession s : sessions) {
          s.sendFailed = true;
        }
        dropped.incrementAndGet();
      } else {
        backlog.incrementAndGet();
        sender.execute(
            () -> {
              try {
                batch.forEach(Runnable::run);
              } finally {
                backlog.decrementAndGet();
              }
            });
      }
    }
  }

  /**
   * After a failed round: nothing half-built is sent, and every agent gets a full schedule next.
   */
  void abandonRound(Iterable<AgentSession> sessions) {
    outbox.clear();
    for (AgentSession s : sessions) {
      s.buffer.clear();
      s.needFull = true;
    }
  }

  /** Ends the stream of a session that closed, replaced or expired. */
  void closed(AgentSession s) {
    ScheduleStream stream = s.stream;
    if (stream != null) {
      stream.close(
          Status.NOT_FOUND.withDescription(
              "session " + s.id + " " + s.closeReason + ": open a new session"));
    }
    s.buffer.clear();
  }

  private boolean changed(FlowRecord r) {
    return !r.pushed || r.priority != r.pushedPriority || rateChanged(r.pushedRate, r.rate);
  }

  private boolean rateChanged(double before, double now) {
    double diff = Math.abs(now - before);
    return tolerance == 0 ? diff != 0 : diff > tolerance * before || now == 0 && diff != 0;
  }

  /**
   * Queues the update for the sending thread. A stream that cannot take it (gone, or its transport
   * full) marks the session, whose next update is then a full schedule.
   */
  private boolean send(
      AgentSession s,
      ScheduleUpdate.Builder b,
      boolean full,
      long epoch,
      String policy,
      PolicyType type) {
    ScheduleStream stream = s.pushedTo;
    if (stream == null) {
      s.needFull = true;
      return false;
    }
    int entries = b.getFlowsCount() + b.getRemovedFlowsCount();
    ScheduleUpdate update =
        b.setEpoch(epoch).setPolicy(policy).setPolicyType(proto(type)).setFull(full).build();
    outbox.add(
        () -> {
          if (stream.trySend(update)) {
            updatesSent.incrementAndGet();
            entriesSent.addAndGet(entries);
          } else {
            s.sendFailed = true;
          }
        });
    return true;
  }

  static org.coflow.api.proto.v1.PolicyType proto(PolicyType type) {
    return type == PolicyType.ORDER
        ? org.coflow.api.proto.v1.PolicyType.POLICY_TYPE_ORDER
        : org.coflow.api.proto.v1.PolicyType.POLICY_TYPE_RATE;
  }
}
