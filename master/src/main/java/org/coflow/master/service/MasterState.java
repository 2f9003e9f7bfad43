package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.StatusException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.master.security.Caller;
import org.coflow.master.security.Printable;

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
  private final Limits limits;

  /** Every host id held by a live session or an unfinished flow's end. */
  private final HostRefs hosts = new HostRefs();

  private final List<String> unregistered = new ArrayList<>();
  private final Map<String, AgentSession> sessions = new LinkedHashMap<>();

  /** Which sessions hold which host ids. */
  private final SessionClaims claims;

  private final Map<String, RegisteredCoflow> coflows = new LinkedHashMap<>();
  private List<FlowRecord> dirty = new ArrayList<>();
  private final List<AgentSession> ended = new ArrayList<>();
  private boolean sessionsChanged = true;
  private boolean coflowsChanged = true;

  /** Unfinished flows of all sessions. */
  private int flowCount;

  /**
   * Bytes of names and attributes held by all sessions' unfinished flows and by registered coflows
   * ({@code maxBytes}).
   */
  private long heldBytes;

  /** Pair sizes of all registered coflows. */
  private int pairSizeCount;

  MasterState(long sessionTimeoutMillis, Limits limits) {
    this.sessionTimeoutNanos = sessionTimeoutMillis * 1_000_000L;
    this.limits = limits;
    this.claims = new SessionClaims(sessionTimeoutNanos, limits);
  }

  /**
   * Opens a session for {@code caller}. A host id held by a live exclusive session is taken over
   * only by the same agent (it names that session) or the same client certificate. A shared-host
   * session ({@code shared_host}) joins the shared sessions of its host id, however many there are,
   * and never takes one over ({@code previous_session_id} is ignored); a host id is held by one
   * exclusive session or by shared ones, never by both.
   *
   * @throws StatusException ALREADY_EXISTS for a host or engine address another live session holds,
   *     or a host the other kind of session holds; RESOURCE_EXHAUSTED past maxHosts or
   *     maxSessionsPerPeer, INVALID_ARGUMENT or FAILED_PRECONDITION for a malformed request
   */
  synchronized AgentSession open(OpenSessionRequest req, Caller caller, long nowNanos)
      throws StatusException {
    RequestChecks.open(req, limits);
    String host = req.getHostId();
    boolean shared = req.getSharedHost();
    AgentSession previous = claims.admit(req, caller, nowNanos, sessions.values());
    requireRoom(hosts.contains(host) ? 0 : 1, "host " + host);
    if (previous != null) {
      end(previous, "replaced by a new session of host " + host);
    }
    AgentSession s =
        new AgentSession(
            UUID.randomUUID().toString(),
            host,
            req.getDataAddress(),
            req.getEngineAddress(),
            req.getUplinkBytesPerSec(),
            req.getDownlinkBytesPerSec(),
            Map.copyOf(req.getLabelsMap()),
            System.currentTimeMillis(),
            caller,
            shared);
    s.lastSeenNanos = nowNanos;
    hosts.add(host);
    sessions.put(s.id, s);
    claims.claim(s);
    sessionsChanged = true;
    return s;
  }

  synchronized void close(String sessionId, Caller caller) {
    AgentSession s = sessions.get(sessionId);
    if (s != null && s.owner.identity().equals(caller.identity())) {
      end(s, "closed by the agent");
    }
  }

  /**
   * Validates and applies one report batch.
   *
   * @throws StatusException NOT_FOUND for an unknown session, FAILED_PRECONDITION for a report of
   *     an unknown flow without spec, INVALID_ARGUMENT for anything malformed, RESOURCE_EXHAUSTED
   *     for flows, their bytes or hosts past the limits
   */
  synchronized void report(ReportBatch batch, Caller caller, long nowNanos) throws StatusException {
    AgentSession s = session(batch.getSessionId(), caller);
    if (batch.getFlowsCount() > limits.maxReportsPerBatch) {
      throw RequestChecks.invalid(
          "a report batch of "
              + batch.getFlowsCount()
              + " flows exceeds "
              + "coflow.master.maxReportsPerBatch="
              + limits.maxReportsPerBatch
              + ": split it");
    }
    Set<Long> seen = new HashSet<>();
    Set<String> newHosts = new HashSet<>();
    Set<String> newPeers = new HashSet<>();
    int more = 0;
    long moreBytes = 0;
    for (FlowReport r : batch.getFlowsList()) {
      FlowRecord known = s.flows.get(r.getFlowId());
      RequestChecks.flow(s, r, known, seen, hosts, newHosts, limits);
      if (known == null && !r.getFinished()) {
        more++;
        FlowSpec spec = r.getSpec();
        moreBytes += Limits.footprint(spec);
        String peer = FlowRecord.peer(s.hostId, spec.getSrcHost(), spec.getDstHost());
        if (peer != null && !s.peers.contains(peer)) {
          newPeers.add(peer);
        }
      } else if (known != null && r.getFinished()) {
        more--;
        moreBytes -= known.footprint;
      }
    }
    requireFlowRoom(s, more);
    limits.sessionBytes(s, s.flowBytes, moreBytes);
    limits.totalBytes(heldBytes, moreBytes);
    limits.sessionHosts(s, s.peers.size(), newPeers.size(), sample(newPeers));
    requireRoom(newHosts.size(), newHosts.size() + " new hosts (" + sample(newHosts) + ")");
    for (FlowReport r : batch.getFlowsList()) {
      FlowRecord f = s.flows.get(r.getFlowId());
      if (f != null && f.dropped) {
        // Its coflow was unregistered: the flow stays out of scheduling until the agent ends it.
        if (r.getFinished()) {
          forget(s, f);
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
        hold(s, f);
      }
      f.sent = r.getBytesSent();
      f.remaining = r.hasBytesRemaining() ? r.getBytesRemaining() : -1;
      if (r.getFinished()) {
        f.ended = true;
        forget(s, f);
      }
      markDirty(f);
    }
    s.lastSeenNanos = nowNanos;
    s.batches++;
  }

  private void requireFlowRoom(AgentSession s, int more) throws StatusException {
    if (more <= 0) {
      return;
    }
    if (s.flows.size() + more > limits.maxFlowsPerSession) {
      throw Limits.exhausted(
          "the session of host '"
              + s.hostId
              + "' would hold "
              + (s.flows.size() + more)
              + " unfinished flows, over "
              + MasterConfig.MAX_FLOWS_PER_SESSION.key()
              + "="
              + limits.maxFlowsPerSession
              + ": report finished flows as finished, or raise the limit");
    }
    if (flowCount + more > limits.maxFlows) {
      throw Limits.exhausted(
          "the master would hold "
              + (flowCount + more)
              + " unfinished flows, over "
              + MasterConfig.MAX_FLOWS.key()
              + "="
              + limits.maxFlows
              + ": retry when flows have finished, or raise the limit");
    }
  }

  /** Adds a flow to its session and counts what it holds. */
  private void hold(AgentSession s, FlowRecord f) {
    s.flows.put(f.flowId, f);
    hosts.add(f.srcHost);
    hosts.add(f.dstHost);
    flowCount++;
    s.flowBytes += f.footprint;
    heldBytes += f.footprint;
    if (f.peer() != null) {
      s.peers.add(f.peer());
    }
  }

  /** Removes a flow from its session and lets go of what it held. */
  private void forget(AgentSession s, FlowRecord f) {
    s.flows.remove(f.flowId);
    hosts.release(f.srcHost);
    hosts.release(f.dstHost);
    flowCount--;
    s.flowBytes -= f.footprint;
    heldBytes -= f.footprint;
    if (f.peer() != null) {
      s.peers.release(f.peer());
    }
  }

  synchronized ScheduleStream watch(String sessionId, Caller caller, ScheduleStream stream)
      throws StatusException {
    AgentSession s = session(sessionId, caller);
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
    Map<HostPair, Long> sizes = RequestChecks.registration(req, limits);
    if (coflows.containsKey(req.getCoflowId())) {
      throw Status.ALREADY_EXISTS
          .withDescription(
              "coflow '"
                  + req.getCoflowId()
                  + "' is already registered: unregister it first or use a new id")
          .asException();
    }
    if (coflows.size() >= limits.maxCoflows) {
      throw Limits.exhausted(
          "coflow '"
              + req.getCoflowId()
              + "': "
              + coflows.size()
              + " coflows are registered, the most "
              + MasterConfig.MAX_COFLOWS.key()
              + "="
              + limits.maxCoflows
              + " allows: unregister finished coflows");
    }
    if (pairSizeCount + sizes.size() > limits.maxPairSizes) {
      throw Limits.exhausted(
          "coflow '"
              + req.getCoflowId()
              + "': its "
              + sizes.size()
              + " pair sizes would take the registered coflows past "
              + MasterConfig.MAX_PAIR_SIZES.key()
              + "="
              + limits.maxPairSizes
              + ": unregister finished coflows, or register without sizes");
    }
    long footprint = RegisteredCoflow.footprint(req.getCoflowId(), req.getName(), sizes);
    limits.totalBytes(heldBytes, footprint);
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
    pairSizeCount += sizes.size();
    heldBytes += footprint;
    coflowsChanged = true;
  }

  synchronized void unregister(String coflowId) throws StatusException {
    limits.name("coflow_id", coflowId);
    RegisteredCoflow removed = coflows.remove(coflowId);
    if (removed == null) {
      throw Status.NOT_FOUND
          .withDescription("coflow '" + coflowId + "' is not registered")
          .asException();
    }
    pairSizeCount -= removed.pairSizes.size();
    heldBytes -= RegisteredCoflow.footprint(removed.id, removed.name, removed.pairSizes);
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
    if (more > 0 && hosts.size() + more > limits.maxHosts) {
      throw Limits.exhausted(
          what
              + " would take the master past "
              + "coflow.master.maxHosts="
              + limits.maxHosts
              + " live hosts: raise it (memory grows with its square)");
    }
  }

  /**
   * The live exclusive session serving a host, by engine address or host id (exactly one
   * non-empty); the most recently opened one when several agents claimed the same engine address.
   * Shared-host sessions are never returned.
   */
  synchronized AgentSession find(String engineAddress, String hostId) throws StatusException {
    limits.name("engine_address", engineAddress);
    limits.name("host_id", hostId);
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
        if (!s.sharedHost
            && engineAddress.equals(s.engineAddress)
            && (found == null || s.openedMillis >= found.openedMillis)) {
          found = s;
        }
      }
    } else {
      found = claims.exclusive(hostId);
    }
    if (found == null) {
      throw Status.NOT_FOUND
          .withDescription(
              "no live agent session has "
                  + (byEngine ? "engine address '" + engineAddress : "host id '" + hostId)
                  + "'; is the host's agent running and connected?"
                  + (!byEngine && claims.shared(hostId)
                      ? " (the host has only shared-host sessions, of coda-agents, which serve"
                          + " no data and are never found)"
                      : ""))
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
              stream != null && stream.isOpen(),
              s.sharedHost));
    }
    return out;
  }

  private void end(AgentSession s, String reason) {
    s.closed = true;
    s.closeReason = reason;
    sessions.remove(s.id);
    claims.release(s);
    hosts.release(s.hostId);
    for (FlowRecord f : s.flows.values()) {
      f.ended = true;
      markDirty(f);
      hosts.release(f.srcHost);
      hosts.release(f.dstHost);
    }
    flowCount -= s.flows.size();
    heldBytes -= s.flowBytes;
    s.flowBytes = 0;
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

  /** The live session {@code id}, if {@code caller} has the identity that opened it. */
  private AgentSession session(String id, Caller caller) throws StatusException {
    limits.name("session_id", id);
    AgentSession s = sessions.get(id);
    if (s == null || !s.owner.identity().equals(caller.identity())) {
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

  /** The first few of {@code hosts}, for a message. */
  private static String sample(Set<String> hosts) {
    StringBuilder b = new StringBuilder();
    for (String h : hosts) {
      if (b.length() > 0) {
        b.append(", ");
      }
      if (b.length() > 200) {
        return b.append("...").toString();
      }
      b.append(Printable.of(h, 100));
    }
    return b.toString();
  }
}
