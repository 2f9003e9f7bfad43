package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.StatusException;
import java.util.Map;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.core.config.Config;
import org.coflow.master.security.Printable;

/**
 * The caps on what callers may make the master hold (names, attributes, flows, sessions, coflows,
 * and per session the bytes of its flows' names and the hosts they name), from {@code
 * coflow.master.*}, and the checks that refuse a request past them with a status naming the value,
 * the key and what to do. Nothing read from the network is stored before it passed these.
 */
final class Limits {
  final int maxNameLength;
  final int maxAttributes;
  final int maxReportsPerBatch;
  final int maxHosts;
  final int maxFlowsPerSession;
  final long maxSessionBytes;
  final long maxBytes;
  final int maxHostsPerSession;
  final int maxFlows;
  final int maxSessionsPerPeer;
  final int maxCoflows;
  final int maxPairSizes;

  Limits(Config c) {
    this.maxNameLength = c.get(MasterConfig.MAX_NAME_LENGTH);
    this.maxAttributes = c.get(MasterConfig.MAX_ATTRIBUTES);
    this.maxReportsPerBatch = c.get(MasterConfig.MAX_REPORTS_PER_BATCH);
    this.maxHosts = c.get(MasterConfig.MAX_HOSTS);
    this.maxFlowsPerSession = c.get(MasterConfig.MAX_FLOWS_PER_SESSION);
    this.maxSessionBytes = c.get(MasterConfig.MAX_SESSION_BYTES);
    long all = c.get(MasterConfig.MAX_BYTES);
    this.maxBytes = all > 0 ? all : Runtime.getRuntime().maxMemory() / 4;
    this.maxHostsPerSession = c.get(MasterConfig.MAX_HOSTS_PER_SESSION);
    this.maxFlows = c.get(MasterConfig.MAX_FLOWS);
    this.maxSessionsPerPeer = c.get(MasterConfig.MAX_SESSIONS_PER_PEER);
    this.maxCoflows = c.get(MasterConfig.MAX_COFLOWS);
    this.maxPairSizes = c.get(MasterConfig.MAX_PAIR_SIZES);
  }

  /** Refuses a string longer than {@code coflow.master.maxNameLength}. */
  void name(String field, String value) throws StatusException {
    if (value.length() > maxNameLength) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              field
                  + " has "
                  + value.length()
                  + " characters (starts '"
                  + Printable.of(value, 40)
                  + "'), over "
                  + MasterConfig.MAX_NAME_LENGTH.key()
                  + "="
                  + maxNameLength
                  + ": use a shorter name")
          .asException();
    }
  }

  /** Refuses more than {@code coflow.master.maxAttributes} entries, or an over-long one. */
  void attributes(String field, Map<String, String> map) throws StatusException {
    if (map.size() > maxAttributes) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              field
                  + " has "
                  + map.size()
                  + " entries, over "
                  + MasterConfig.MAX_ATTRIBUTES.key()
                  + "="
                  + maxAttributes
                  + ": send fewer")
          .asException();
    }
    for (Map.Entry<String, String> e : map.entrySet()) {
      name(field + " key", e.getKey());
      name(field + "['" + Printable.of(e.getKey(), 40) + "']", e.getValue());
    }
  }

  /**
   * Refuses flows that would take a session past {@code coflow.master.maxSessionBytes}.
   *
   * @param held the bytes its unfinished flows hold
   * @param more the bytes a batch adds (net of the flows it finishes)
   */
  void sessionBytes(AgentSession s, long held, long more) throws StatusException {
    if (more > 0 && held + more > maxSessionBytes) {
      throw exhausted(
          "the session of host '"
              + Printable.of(s.hostId, 100)
              + "' would hold "
              + (held + more)
              + " bytes of flow names and attributes, over "
              + MasterConfig.MAX_SESSION_BYTES.key()
              + "="
              + maxSessionBytes
              + ": report finished flows as finished, send fewer or shorter attributes, or raise "
              + "the limit");
    }
  }

  /**
   * Refuses flows or a registration that would take the master past {@code coflow.master.maxBytes}.
   *
   * @param held the bytes all unfinished flows and registered coflows hold
   * @param more the bytes a batch or registration adds (net of the flows it finishes)
   */
  void totalBytes(long held, long more) throws StatusException {
    if (more > 0 && held + more > maxBytes) {
      throw exhausted(
          "the master's flows and registered coflows would hold "
              + (held + more)
              + " bytes of names and attributes, over "
              + MasterConfig.MAX_BYTES.key()
              + "="
              + maxBytes
              + ": retry when flows have finished or coflows are unregistered, send fewer or "
              + "shorter names, or give the master a larger heap");
    }
  }

  /** Refuses flows that would make a session name more than {@code maxHostsPerSession} hosts. */
  void sessionHosts(AgentSession s, int held, int more, String sample) throws StatusException {
    if (more > 0 && held + more > maxHostsPerSession) {
      throw exhausted(
          "the session of host '"
              + Printable.of(s.hostId, 100)
              + "' would have flows to "
              + (held + more)
              + " other hosts ("
              + sample
              + "), over "
              + MasterConfig.MAX_HOSTS_PER_SESSION.key()
              + "="
              + maxHostsPerSession
              + ": raise it if one host really exchanges data with that many at once");
    }
  }

  /** What a flow's names and attributes count against its session's bytes: two a character. */
  static long footprint(
      String coflowId, String srcHost, String dstHost, Map<String, String> attributes) {
    long chars = coflowId.length() + srcHost.length() + dstHost.length();
    for (Map.Entry<String, String> e : attributes.entrySet()) {
      chars += e.getKey().length() + e.getValue().length();
    }
    return 2 * chars;
  }

  static long footprint(FlowSpec spec) {
    return footprint(
        spec.getCoflowId(), spec.getSrcHost(), spec.getDstHost(), spec.getAttributesMap());
  }

  static StatusException exhausted(String message) {
    return Status.RESOURCE_EXHAUSTED.withDescription(message).asException();
  }
}
