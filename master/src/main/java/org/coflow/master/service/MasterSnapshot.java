package org.coflow.master.service;

import java.util.List;
import java.util.Map;

/**
 * A consistent picture of the master between two scheduling rounds, for the dashboard, the JSON API
 * and tests. Rates are bytes/s, sizes bytes, times as named.
 *
 * @param policy the policy in force
 * @param policyType RATE or ORDER
 * @param intervalMs the scheduling interval Δ
 * @param round rounds completed
 * @param decisionP50Ms median policy run time over recent rounds
 * @param decisionP99Ms 99th percentile policy run time over recent rounds
 * @param behindMs how late the latest round started
 * @param agents registered agents
 * @param hosts every host seen (agents' and flows' ends)
 * @param coflows active coflows, most important first
 */
public record MasterSnapshot(
    String policy,
    String policyType,
    long intervalMs,
    long round,
    double decisionP50Ms,
    double decisionP99Ms,
    double behindMs,
    List<Agent> agents,
    List<Host> hosts,
    List<CoflowView> coflows) {

  /**
   * A registered agent: the registry entry of its host. Its {@code sessionId} is what the agent's
   * calls name and what lets it reclaim its host: a secret, never published (the HTTP API leaves it
   * out). {@code sharedHost}: one of several sessions of its host (a coda-agent's, one per JVM).
   */
  public record Agent(
      String hostId,
      String sessionId,
      String dataAddress,
      String engineAddress,
      double uplink,
      double downlink,
      Map<String, String> labels,
      long openedMillis,
      long silentMs,
      int flows,
      long batches,
      boolean watching,
      boolean sharedHost) {}

  /** A host (a port of the fabric) with its capacities and traffic. */
  public record Host(
      String id,
      double uplink,
      double downlink,
      double allocatedSend,
      double allocatedReceive,
      double measuredSend,
      double measuredReceive) {}

  /**
   * An active coflow.
   *
   * @param priority best (lowest) priority among its flows: its queue or place in the order
   * @param rate sum of its flows' rates
   * @param flowsOmitted flows left out of {@code flows} by the caller's limit
   */
  public record CoflowView(
      String id,
      String name,
      double ageSeconds,
      double bytesSent,
      double knownBytes,
      boolean sizesKnown,
      int width,
      int senders,
      int receivers,
      double weight,
      int priority,
      double rate,
      List<FlowView> flows,
      int flowsOmitted) {}

  /** One active flow of a coflow. {@code size} is -1 when unknown. */
  public record FlowView(
      String reporter,
      long flowId,
      String src,
      String dst,
      double sent,
      double size,
      double rate,
      int priority) {}
}
