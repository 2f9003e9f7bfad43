package org.coflow.master.service;

import java.util.Map;
import org.coflow.core.model.Flow;

/**
 * A flow as its agent reported it, plus the scheduling thread's view of it.
 *
 * <p>Guarded fields are written by report handlers under the {@link MasterState} lock and copied to
 * the loop fields when the scheduling thread drains the round's changes; loop fields are only
 * touched by the scheduling thread.
 */
final class FlowRecord {
  final AgentSession session;
  final long flowId;

  /** As reported; empty when the agent could not tell (the identifier assigns one). */
  final String coflowId;

  final String srcHost;
  final String dstHost;
  final long startMillis;
  final Map<String, String> attributes;

  /** What its names and attributes count against its session's bytes. */
  final long footprint;

  /** Guarded: cumulative bytes sent. */
  long sent;

  /** Guarded: bytes still to send, or -1 when unknown. */
  long remaining = -1;

  /** Guarded: finished, or dropped with its session or coflow. */
  boolean ended;

  /** Guarded: changed since the last drain. */
  boolean dirty;

  /** Guarded: its coflow was unregistered; reports are ignored until the agent finishes it. */
  boolean dropped;

  /** Loop: copies of the guarded values at the last drain. */
  long viewSent;

  long viewRemaining = -1;
  boolean viewEnded;

  /** Loop: the model flow while scheduled, null before and after. */
  Flow flow;

  /**
   * Loop: the model is done with the flow although its agent has not said so (all its bytes
   * reported, or its identified coflow unregistered); it is never admitted again.
   */
  boolean retired;

  /**
   * Loop: retired because its coflow was unregistered (never re-admitted, unlike a flow whose
   * reported bytes ran out early).
   */
  boolean unregistered;

  /** Loop: the identifier's handle while it holds the flow, else -1. */
  long identity = -1;

  /** Loop: the coflow the flow was scheduled in (reported or identified). */
  String assignedCoflow;

  /** Loop: bytes already added to the model flow. */
  long appliedSent;

  /** Loop: position in the scheduling thread's list of active records (= the flow's index). */
  int activePos = -1;

  /** Loop: the flow's ports while scheduled. */
  int srcPort;

  int dstPort;

  /** Loop: the decision of the last round. */
  double rate;

  int priority;

  /** Loop: what was last pushed to the agent; {@code pushed} false until the first push. */
  boolean pushed;

  double pushedRate;
  int pushedPriority;

  FlowRecord(
      AgentSession session,
      long flowId,
      String coflowId,
      String srcHost,
      String dstHost,
      long startMillis,
      Map<String, String> attributes) {
    this.session = session;
    this.flowId = flowId;
    this.coflowId = coflowId;
    this.srcHost = srcHost;
    this.dstHost = dstHost;
    this.startMillis = startMillis;
    this.attributes = attributes;
    this.footprint = Limits.footprint(coflowId, srcHost, dstHost, attributes);
  }

  /** The end that is not its session's host, or null when both are. */
  String peer() {
    return peer(session.hostId, srcHost, dstHost);
  }

  static String peer(String own, String srcHost, String dstHost) {
    if (!srcHost.equals(own)) {
      return srcHost;
    }
    return dstHost.equals(own) ? null : dstHost;
  }

  @Override
  public String toString() {
    return "flow " + flowId + " of " + session;
  }
}
