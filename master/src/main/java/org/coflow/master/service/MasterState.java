package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.StatusException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.PairSize;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.api.proto.v1.ReportBatch;

/**
 * The master's registry as the RPC handlers see it: sessions, their flows as reported, registered
 * coflows. Every request is validated whole before any of it is applied, so a rejected request
 * leaves the state as it was. The scheduling thread takes the round's changes with {@link #drain}.
 *
 * <p>Thread-safe: one lock guards everything here; handlers hold it for the time it takes to
 * validate and copy a request, never during a policy run.
 */
final class MasterState {
  private final long sessionTimeoutNanos;
  private final int maxReportsPerBatch;
  private final int maxHosts;

  /** Every host id seen (sessions and flow ends): each becomes a port that is never reused. */
  private final Set<String> hosts = new HashSet<>();

  private final List<String> unregistered = new ArrayList<>();
  private final Map<String, AgentSession> sessions = new LinkedHashMap<>();
  private final Map<String, AgentSession> byHost = new HashMap<>();
  private final Map<String, RegisteredCoflow> coflows = new LinkedHashMap<>();
  private List<FlowRecord> dirty = new ArrayList<>();
  private final List<AgentSession> ended = new ArrayList<>();
  private boolean sessionsChanged = true;
  private boolean coflowsChanged = true;

  MasterState(long sessionTimeoutMillis, int maxReportsPerBatch, int maxHosts) {
    this.sessionTimeoutNanos = sessionTimeoutMillis * 1_000_000L;
    this.maxReportsPerBatch = maxReportsPerBatch;
    this.maxHosts = maxHosts;
  }

  synchronized AgentSession open(OpenSessionRequest req, long nowNanos) throws StatusException {
    if (req.getProtocolVersion() != ProtocolVersion.PROTOCOL_VERSION_1) {
      throw Status.FAILED_PRECONDITION
          .withDescription(
              "protocol version "
                  + req.getProtocolVersionValue()
                  + " is not supported by this master, which speaks "
                  + ProtocolVersion.PROTOCOL_VERSION_1.getNumber()
                  + ": run an agent of the same release")
          .asException();
    }
    requireNonEmpty(req.getHostId(), "host_id", "the host this agent is the Courier of");
    requireCapacity("uplink_bytes_per_sec", req.getUplinkBytesPerSec());
    requireCapacity("downlink_bytes_per_sec", req.getDownlinkBytesPerSec());
    requireRoom(hosts.contains(req.getHostId()) ? 0 : 1, "host " + req.getHostId());
    hosts.add(req.getHostId());
    AgentSession previous = byHost.get(req.getHostId());
    if (previous != null) {
      end(previous, "replaced by a new session of host " + req.getHostId());
    }
    AgentSession s =
        new AgentSession(
            UUID.randomUUID().toString(),
            req.getHostId(),
            req.getDataAddress(),
            req.getEngineAddress(),
            req.getUplinkBytesPerSec(),
            req.getDownlinkBytesPerSec(),
            Map.copyOf(req.getLabelsMap()),
            System.currentTimeMillis());
    s.lastSeenNanos = nowNanos;
    sessions.put(s.id, s);
    byHost.put(s.hostId, s);
    sessionsChanged = true;
    return s;
  }

  synchronized void close(String sessionId) {
    AgentSession s = sessions.get(sessionId);
    if (s != null) {
      end(s, "closed by the agent");
    }
  }

  /**
   * Validates and applies one report batch.
   *
   * @throws StatusException NOT_FOUND for an unknown session, FAILED_PRECONDITION for a report of
   *     an unknown flow without spec, INVALID_ARGUMENT for anything malformed
   */
  synchronized void report(ReportBatch batch, long nowNanos) throws StatusException {
    AgentSession s = session(batch.getSessionId());
    if (batch.getFlowsCount() > maxReportsPerBatch) {
      throw invalid(
          "a report batch of "
              + batch.getFlowsCount()
              + " flows exceeds "
              + "coflow.master.maxReportsPerBatch="
              + maxReportsPerBatch
              + ": split it");
    }
    Set<Long> seen = new HashSet<>();
    Set<String> newHosts = new HashSet<>();
    for (FlowReport r : batch.getFlowsList()) {
      validate(s, r, seen, newHosts);
    }
    requireRoom(newHosts.size(), "hosts " + newHosts);
    hosts.addAll(newHosts);
    for (FlowReport r : batch.getFlowsList()) {
      FlowRecord f = s.flows.get(r.getFlowId());
      if (f != null && f.dropped) {
        // Its coflow was unregistered: the flow stays out of scheduling until the agent ends it.
        if (r.getFinished()) {
          s.flows.remove(r.getFlowId());
        }
        f.sent = r.getBytesSent();
        continue;
      }
      if (f == null) {
        FlowSpec spec = r.getSpec();
        f =
            new FlowRecord(
                s,
                r.getFlowId(),
                spec.getCoflowId(),
                spec.getSrcHost(),
                spec.getDstHost(),
                spec.getStartTimeMs(),
                Map.copyOf(spec.getAttributesMap()));
        s.flows.put(r.getFlowId(), f);
      }
      f.sent = r.getBytesSent();
      f.remaining = r.hasBytesRemaining() ? r.getBytesRemaining() : -1;
      if (r.getFinished()) {
        f.ended = true;
        s.flows.remove(r.getFlowId());
      }
      markDirty(f);
    }
    s.lastSeenNanos = nowNanos;
    s.batches++;
  }

  private void validate(AgentSession s, FlowReport r, Set<Long> seen, Set<String> newHosts)
      throws StatusException {
    long id = r.getFlowId();
    if (!seen.add(id)) {
      throw invalid("flow " + id + " appears twice in one report batch: send one report per flow");
    }
    if (r.getBytesSent() < 0) {
      throw invalid("flow " + id + ": bytes_sent must not be negative, got " + r.getBytesSent());
    }
    if (r.hasBytesRemaining() && r.getBytesRemaining() < 0) {
      throw invalid(
          "flow "
              + id
              + ": bytes_remaining must not be negative, got "
              + r.getBytesRemaining()
              + " (leave it unset when unknown)");
    }
    FlowRecord known = s.flows.get(id);
    if (known == null) {
      if (!r.hasSpec()) {
        throw Status.FAILED_PRECONDITION
            .withDescription(
                "flow "
                    + id
                    + " of host "
                    + s.hostId
                    + " is unknown to this master (new, or the master restarted): send it with its spec")
            .asException();
      }
      FlowSpec spec = r.getSpec();
      requireNonEmpty(spec.getSrcHost(), "flow " + id + ": spec.src_host", "the sending host id");
      requireNonEmpty(spec.getDstHost(), "flow " + id + ": spec.dst_host", "the receiving host id");
      if (!spec.getSrcHost().equals(s.hostId) && !spec.getDstHost().equals(s.hostId)) {
        throw invalid(
            "flow "
                + id
                + ": neither src_host '"
                + spec.getSrcHost()
                + "' nor dst_host '"
                + spec.getDstHost()
                + "' is this session's host '"
                + s.hostId
                + "': an agent reports "
                + "only flows its own host sends or receives");
      }
      for (String h : List.of(spec.getSrcHost(), spec.getDstHost())) {
        if (!hosts.contains(h)) {
          newHosts.add(h);
        }
      }
      return;
    }
    if (r.hasSpec()) {
      FlowSpec spec = r.getSpec();
      if (!spec.getCoflowId().equals(known.coflowId)
          || !spec.getSrcHost().equals(known.srcHost)
          || !spec.getDstHost().equals(known.dstHost)) {
        throw invalid(
            "flow "
                + id
                + ": spec changed from coflow '"
                + known.coflowId
                + "' "
                + known.srcHost
                + "->"
                + known.dstHost
                + " to coflow '"
                + spec.getCoflowId()
                + "' "
                + spec.getSrcHost()
                + "->"
                + spec.getDstHost()
                + ": a new flow needs a new flow id");
      }
    }
    if (r.getBytesSent() < known.sent) {
      throw invalid(
          "flow "
              + id
              + ": bytes_sent went backwards from "
              + known.sent
              + " to "
              + r.getBytesSent()
              + "; it counts every byte sent since the flow started");
    }
  }

  synchronized ScheduleStream watch(String sessionId, ScheduleStream stream)
      throws StatusException {
    AgentSession s = session(sessionId);
    ScheduleStream old = s.stream;
    s.stream = stream;
    return old;
  }

  /** Forgets {@code stream} if it is still its session's (the agent cancelled it). */
  synchronized void unwatch(String sessionId, ScheduleStream stream) {
    AgentSession s = sessions.get(sessionId);
    if (s != null && s.stream == stream) {
      s.stream = null;
    }
  }

  synchronized void register(RegisterCoflowRequest req) throws StatusException {
    requireNonEmpty(req.getCoflowId(), "coflow_id", "the coflow's id (Spark: app id + shuffle id)");
    if (coflows.containsKey(req.getCoflowId())) {
      throw Status.ALREADY_EXISTS
          .withDescription(
              "coflow '"
                  + req.getCoflowId()
                  + "' is already registered: unregister it first or use a new id")
          .asException();
    }
    if (req.getWeight() < 0
        || Double.isNaN(req.getWeight())
        || Double.isInfinite(req.getWeight())) {
      throw invalid(
          "coflow '"
              + req.getCoflowId()
              + "': weight must be a positive number (0 for "
              + "the default 1), got "
              + req.getWeight());
    }
    if (req.getDeadlineMs() < 0) {
      throw invalid(
          "coflow '"
              + req.getCoflowId()
              + "': deadline_ms must not be negative, got "
              + req.getDeadlineMs());
    }
    Map<HostPair, Long> sizes = new HashMap<>();
    for (PairSize p : req.getSizesList()) {
      requireNonEmpty(
          p.getSrcHost(), "coflow '" + req.getCoflowId() + "': sizes.src_host", "a host id");
      requireNonEmpty(
          p.getDstHost(), "coflow '" + req.getCoflowId() + "': sizes.dst_host", "a host id");
      if (p.getBytes() < 0) {
        throw invalid(
            "coflow '"
                + req.getCoflowId()
                + "': size of "
                + p.getSrcHost()
                + "->"
                + p.getDstHost()
                + " must not be negative, got "
                + p.getBytes());
      }
      sizes.merge(new HostPair(p.getSrcHost(), p.getDstHost()), p.getBytes(), Long::sum);
    }
    double weight = req.getWeight() == 0 ? 1 : req.getWeight();
    coflows.put(
        req.getCoflowId(),
        new RegisteredCoflow(
            req.getCoflowId(),
            req.getName(),
            weight,
            req.getDeadlineMs(),
            Map.copyOf(sizes),
            System.currentTimeMillis()));
    coflowsChanged = true;
  }

  synchronized void unregister(String coflowId) throws StatusException {
    if (coflows.remove(coflowId) == null) {
      throw Status.NOT_FOUND
          .withDescription("coflow '" + coflowId + "' is not registered")
          .asException();
    }
    for (AgentSession s : sessions.values()) {
      for (FlowRecord f : s.flows.values()) {
        if (f.coflowId.equals(coflowId) && !f.dropped) {
          f.ended = true;
          f.dropped = true;
          markDirty(f);
        }
      }
    }
    unregistered.add(coflowId);
    coflowsChanged = true;
  }

  /** What changed since the last drain, for the scheduling thread. */
  static final class Changes {
    List<FlowRecord> flows = List.of();
    List<AgentSession> endedSessions = List.of();

    /** Non-null when the set of sessions changed: all live sessions. */
    List<AgentSession> sessions;

    /** Non-null when registrations changed: all registered coflows. */
    Map<String, RegisteredCoflow> coflows;

    /** Coflows unregistered since the last drain (identified flows of theirs are dropped too). */
    List<String> unregistered = List.of();
  }

  /**
   * Expires silent sessions, then hands over the round's changes: copies every changed record's
   * reported values to its loop fields.
   */
  synchronized Changes drain(long nowNanos) {
    List<AgentSession> expired = new ArrayList<>();
    for (AgentSession s : sessions.values()) {
      if (nowNanos - s.lastSeenNanos > sessionTimeoutNanos) {
        expired.add(s);
      }
    }
    for (AgentSession s : expired) {
      end(s, "expired after " + sessionTimeoutNanos / 1_000_000 + " ms without a report");
    }
    Changes c = new Changes();
    for (FlowRecord f : dirty) {
      f.viewSent = f.sent;
      f.viewRemaining = f.remaining;
      f.viewEnded = f.ended;
      f.dirty = false;
    }
    c.flows = dirty;
    dirty = new ArrayList<>(Math.max(16, c.flows.size()));
    if (!ended.isEmpty()) {
      c.endedSessions = new ArrayList<>(ended);
      ended.clear();
    }
    if (sessionsChanged) {
      c.sessions = new ArrayList<>(sessions.values());
      sessionsChanged = false;
    }
    if (coflowsChanged) {
      c.coflows = Collections.unmodifiableMap(new LinkedHashMap<>(coflows));
      coflowsChanged = false;
    }
    if (!unregistered.isEmpty()) {
      c.unregistered = new ArrayList<>(unregistered);
      unregistered.clear();
    }
    return c;
  }

  /**
   * Marks drained records changed again, after a round that failed before applying them all:
   * applying a record twice is harmless (counters are absolute), losing it is not.
   */
  synchronized void requeue(List<FlowRecord> records) {
    for (FlowRecord f : records) {
      f.viewSent = f.sent;
      f.viewRemaining = f.remaining;
      f.viewEnded = f.ended;
      markDirty(f);
    }
  }

  private void requireRoom(int more, String what) throws StatusException {
    if (more > 0 && hosts.size() + more > maxHosts) {
      throw Status.RESOURCE_EXHAUSTED
          .withDescription(
              what
                  + " would take the master past "
                  + "coflow.master.maxHosts="
                  + maxHosts
                  + " hosts: raise it (memory grows with its square)")
          .asException();
    }
  }

  /**
   * The live session serving a host, by engine address or host id (exactly one non-empty); the most
   * recently opened one when several agents claimed the same engine address.
   */
  synchronized AgentSession find(String engineAddress, String hostId) throws StatusException {
    boolean byEngine = !engineAddress.isEmpty();
    if (byEngine == !hostId.isEmpty()) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              "FindAgent needs exactly one of engine_address and host_id (got '"
                  + engineAddress
                  + "' and '"
                  + hostId
                  + "')")
          .asException();
    }
    AgentSession found = null;
    if (byEngine) {
      for (AgentSession s : sessions.values()) {
        if (engineAddress.equals(s.engineAddress)
            && (found == null || s.openedMillis >= found.openedMillis)) {
          found = s;
        }
      }
    } else {
      found = byHost.get(hostId);
    }
    if (found == null) {
      throw Status.NOT_FOUND
          .withDescription(
              "no live agent session has "
                  + (byEngine ? "engine address '" + engineAddress : "host id '" + hostId)
                  + "'; is the host's agent running and connected?")
          .asException();
    }
    return found;
  }

  synchronized int sessionCount() {
    return sessions.size();
  }

  /** The registry of agents, for the dashboard and the API. */
  synchronized List<MasterSnapshot.Agent> agents(long nowNanos) {
    List<MasterSnapshot.Agent> out = new ArrayList<>();
    for (AgentSession s : sessions.values()) {
      ScheduleStream stream = s.stream;
      out.add(
          new MasterSnapshot.Agent(
              s.hostId,
              s.id,
              s.dataAddress,
              s.engineAddress,
              s.uplink,
              s.downlink,
              s.labels,
              s.openedMillis,
              (nowNanos - s.lastSeenNanos) / 1_000_000,
              s.flows.size(),
              s.batches,
              stream != null && stream.isOpen()));
    }
    return out;
  }

  private void end(AgentSession s, String reason) {
    s.closed = true;
    s.closeReason = reason;
    sessions.remove(s.id);
    if (byHost.get(s.hostId) == s) {
      byHost.remove(s.hostId);
    }
    for (FlowRecord f : s.flows.values()) {
      f.ended = true;
      markDirty(f);
    }
    s.flows.clear();
    ended.add(s);
    sessionsChanged = true;
  }

  private void markDirty(FlowRecord f) {
    if (!f.dirty) {
      f.dirty = true;
      dirty.add(f);
    }
  }

  private AgentSession session(String id) throws StatusException {
    AgentSession s = sessions.get(id);
    if (s == null) {
      throw Status.NOT_FOUND
          .withDescription(
              "session '"
                  + id
                  + "' is not open on this master "
                  + "(never opened, closed, expired, or the master restarted): open a new session and "
                  + "resend every flow with its spec")
          .asException();
    }
    return s;
  }

  private static void requireNonEmpty(String value, String field, String what)
      throws StatusException {
    if (value.isEmpty()) {
      throw invalid(field + " is empty: it must name " + what);
    }
  }

  private static void requireCapacity(String field, double v) throws StatusException {
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw invalid(
          field + " must be a finite number of bytes/s, 0 for the master's default; got " + v);
    }
  }

  private static StatusException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asException();
  }
}
