package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.StatusException;
import java.util.Map;
import org.coflow.api.config.Config;

/**
 * The caps on what callers may make the master hold (names, attributes, flows, sessions, coflows),
 * from {@code coflow.master.*}, and the checks that refuse a request past them with a status naming
 * the value, the key and what to do. Nothing read from the network is stored before it passed
 * these.
 */
final class Limits {
  final int maxNameLength;
  final int maxAttributes;
  final int maxReportsPerBatch;
  final int maxHosts;
  final int maxFlowsPerSession;
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
                  + printable(value.substring(0, Math.min(40, value.length())))
                  + "...'), over "
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
      name(field + "['" + printable(e.getKey()) + "']", e.getValue());
    }
  }

  static StatusException exhausted(String message) {
    return Status.RESOURCE_EXHAUSTED.withDescription(message).asException();
  }

  /** A value safe to quote in a message: control characters replaced. */
  private static String printable(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      b.append(c < ' ' || c == 0x7f ? '?' : c);
    }
    return b.toString();
  }
}
