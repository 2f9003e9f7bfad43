package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.StatusException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.master.security.Caller;

/**
 * Who holds each host id, and how many sessions each peer holds: whether a new session may open,
 * and which live session it replaces. A host id is held by one exclusive session (a Courier agent)
 * or by any number of shared-host sessions (coda-agents, one per JVM), never by both. Not
 * thread-safe: {@link MasterState}'s lock guards it.
 */
final class SessionClaims {
  private final long sessionTimeoutNanos;
  private final Limits limits;

  /** The exclusive session of each host id it holds (shared-host sessions are never here). */
  private final Map<String, AgentSession> byHost = new HashMap<>();

  /** Live shared-host sessions per host id (a host id is in this map or in byHost, never both). */
  private final Map<String, Integer> sharedByHost = new HashMap<>();

  private final Map<String, Integer> sessionsByPeer = new HashMap<>();

  SessionClaims(long sessionTimeoutNanos, Limits limits) {
    this.sessionTimeoutNanos = sessionTimeoutNanos;
    this.limits = limits;
  }

  /**
   * Whether {@code req} may open a session for {@code caller}, given the {@code live} sessions:
   * returns the live exclusive session it replaces, or null.
   *
   * @throws StatusException ALREADY_EXISTS for a host or engine address another live session holds,
   *     or a host the other kind of session holds; RESOURCE_EXHAUSTED past maxSessionsPerPeer
   */
  AgentSession admit(
      OpenSessionRequest req, Caller caller, long nowNanos, Collection<AgentSession> live)
      throws StatusException {
    String host = req.getHostId();
    boolean shared = req.getSharedHost();
    AgentSession exclusive = byHost.get(host);
    int sharers = sharedByHost.getOrDefault(host, 0);
    if (shared && exclusive != null) {
      throw Status.ALREADY_EXISTS
          .withDescription(
              "host '"
                  + host
                  + "' is held by an exclusive session (a Courier agent, last report "
                  + (nowNanos - exclusive.lastSeenNanos) / 1_000_000
                  + " ms ago): a shared-host session (shared_host, one per JVM as the coda-agent "
                  + "opens) cannot join it. Run either a Courier agent or coda-agents on a host, "
                  + "not both, or give them different host ids")
          .asException();
    }
    if (!shared && sharers > 0) {
      throw Status.ALREADY_EXISTS
          .withDescription(
              "host '"
                  + host
                  + "' is held by "
                  + sharers
                  + " shared-host session(s) (coda-agents, one per JVM): an exclusive session (a "
                  + "Courier agent) cannot take a host they share. Stop the coda-agents of this "
                  + "host first (their sessions end when they close, or expire after "
                  + "coflow.master.sessionTimeout="
                  + sessionTimeoutNanos / 1_000_000
                  + " ms), open this session with shared_host set, or give this agent another "
                  + "host id")
          .asException();
    }
    AgentSession previous = shared ? null : exclusive;
    if (previous != null && !mayReplace(previous, req, caller)) {
      throw Status.ALREADY_EXISTS
          .withDescription(
              "host '"
                  + host
                  + "' is held by a live session (last report "
                  + (nowNanos - previous.lastSeenNanos) / 1_000_000
                  + " ms ago): a second session for a host id is refused unless it names the live "
                  + "session (previous_session_id) or presents the same client certificate. A "
                  + "restarted agent gets the host once the old session expires "
                  + "(coflow.master.sessionTimeout="
                  + sessionTimeoutNanos / 1_000_000
                  + " ms); if another agent uses this host id, give each agent its own")
          .asException();
    }
    if (!shared && !req.getEngineAddress().isEmpty()) {
      // Shared sessions are never found by engine address: only exclusive ones claim one.
      for (AgentSession s : live) {
        if (!s.sharedHost
            && s.engineAddress.equals(req.getEngineAddress())
            && !s.hostId.equals(host)) {
          throw Status.ALREADY_EXISTS
              .withDescription(
                  "engine address '"
                      + req.getEngineAddress()
                      + "' is held by the live session of host '"
                      + s.hostId
                      + "': each agent serves its own engine address")
              .asException();
        }
      }
    }
    if (!caller.local()) {
      int held = sessionsByPeer.getOrDefault(caller.peerKey(), 0);
      if (previous != null && previous.owner.peerKey().equals(caller.peerKey())) {
        held--;
      }
      if (held >= limits.maxSessionsPerPeer) {
        throw Limits.exhausted(
            caller
                + " already holds "
                + held
                + " live sessions, the most "
                + MasterConfig.MAX_SESSIONS_PER_PEER.key()
                + "="
                + limits.maxSessionsPerPeer
                + " allows: close sessions first, or give each host's agent its own identity");
      }
    }
    return previous;
  }

  /** Records that live session {@code s} holds its host id. */
  void claim(AgentSession s) {
    if (s.sharedHost) {
      sharedByHost.merge(s.hostId, 1, Integer::sum);
    } else {
      byHost.put(s.hostId, s);
    }
    sessionsByPeer.merge(s.owner.peerKey(), 1, Integer::sum);
  }

  /** Session {@code s} ended: it no longer holds its host id. */
  void release(AgentSession s) {
    if (s.sharedHost) {
      sharedByHost.computeIfPresent(s.hostId, (k, n) -> n == 1 ? null : n - 1);
    } else if (byHost.get(s.hostId) == s) {
      byHost.remove(s.hostId);
    }
    sessionsByPeer.computeIfPresent(s.owner.peerKey(), (k, n) -> n == 1 ? null : n - 1);
  }

  /** The live exclusive session holding {@code hostId}, or null. */
  AgentSession exclusive(String hostId) {
    return byHost.get(hostId);
  }

  /** Whether shared-host sessions hold {@code hostId}. */
  boolean shared(String hostId) {
    return sharedByHost.containsKey(hostId);
  }

  /** The same agent (it knows the live session's id) or the same client certificate. */
  private static boolean mayReplace(AgentSession live, OpenSessionRequest req, Caller caller) {
    if (!live.owner.identity().equals(caller.identity())) {
      return false;
    }
    if (caller.certified()) {
      return true;
    }
    return MessageDigest.isEqual(
        live.id.getBytes(StandardCharsets.UTF_8),
        req.getPreviousSessionId().getBytes(StandardCharsets.UTF_8));
  }
}
