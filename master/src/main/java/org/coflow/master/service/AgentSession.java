package org.coflow.master.service;

import java.util.HashMap;
import java.util.Map;
import org.coflow.master.security.Caller;

/**
 * One agent's session: the registry entry of its host (addresses, capacities) and, on the
 * scheduling thread, what was last pushed to it.
 *
 * <p>Fields marked "guarded" are read and written under the {@link MasterState} lock; fields marked
 * "loop" only on the scheduling thread.
 */
final class AgentSession {
  final String id;
  final String hostId;
  final String dataAddress;
  final String engineAddress;

  /** Declared capacities in bytes/s; 0 = the master's default. */
  final double uplink;

  final double downlink;
  final Map<String, String> labels;
  final long openedMillis;

  /** Who opened it: only the same identity may use it, or take its host over. */
  final Caller owner;

  /**
   * One of several processes of its host (the coda-agent: one session per JVM), sharing the host id
   * with other shared sessions, never with an exclusive one (a Courier agent). FindAgent never
   * returns it and it gets no pair schedules, only its own flows' schedules.
   */
  final boolean sharedHost;

  /** Guarded: the session's flows by their flow id. */
  final Map<Long, FlowRecord> flows = new HashMap<>();

  /** Guarded: the bytes of names and attributes of its flows ({@code maxSessionBytes}). */
  long flowBytes;

  /** Guarded: the hosts besides its own its flows name ({@code maxHostsPerSession}). */
  final HostRefs peers = new HostRefs();

  /** Guarded. */
  long lastSeenNanos;

  /** Written under the lock, read by the scheduling thread: closed, replaced or expired. */
  volatile boolean closed;

  /** Guarded: why it was closed, for the schedule stream's status. */
  String closeReason;

  /** Written under the lock, read by the scheduling thread: the current schedule stream. */
  volatile ScheduleStream stream;

  /** Guarded: report batches accepted, for the dashboard. */
  long batches;

  /** Loop: the stream the last update went to; a new stream gets a full schedule first. */
  ScheduleStream pushedTo;

  /** Set by the sending thread when an update could not be sent: the next one must be full. */
  volatile boolean sendFailed;

  /** Loop: the next update must be full (new stream, or a skipped update). */
  boolean needFull = true;

  /** Loop: flows this round whose entries changed or vanished (builders of the next update). */
  final UpdateBuffer buffer = new UpdateBuffer();

  AgentSession(
      String id,
      String hostId,
      String dataAddress,
      String engineAddress,
      double uplink,
      double downlink,
      Map<String, String> labels,
      long openedMillis,
      Caller owner,
      boolean sharedHost) {
    this.id = id;
    this.hostId = hostId;
    this.dataAddress = dataAddress;
    this.engineAddress = engineAddress;
    this.uplink = uplink;
    this.downlink = downlink;
    this.labels = labels;
    this.openedMillis = openedMillis;
    this.owner = owner;
    this.sharedHost = sharedHost;
  }

  @Override
  public String toString() {
    return "session " + id + " (host " + hostId + (sharedHost ? ", shared" : "") + ")";
  }
}
