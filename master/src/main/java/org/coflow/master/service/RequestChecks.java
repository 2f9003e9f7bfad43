package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.StatusException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.PairSize;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.master.security.Printable;

/**
 * Validation of each request on its own, before {@link MasterState} looks at what it holds: the
 * protocol version, empty and over-long names, negative numbers, specs that change. Every failure
 * is a status whose description names the field, the value and what to do.
 */
final class RequestChecks {
  private RequestChecks() {}

  static void open(OpenSessionRequest req, Limits limits) throws StatusException {
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
    limits.name("host_id", req.getHostId());
    limits.name("data_address", req.getDataAddress());
    limits.name("engine_address", req.getEngineAddress());
    limits.name("previous_session_id", req.getPreviousSessionId());
    limits.attributes("labels", req.getLabelsMap());
    requireCapacity("uplink_bytes_per_sec", req.getUplinkBytesPerSec());
    requireCapacity("downlink_bytes_per_sec", req.getDownlinkBytesPerSec());
  }

  /**
   * Checks one report of a batch against the flow the session already has ({@code known}, or null
   * for a new flow); collects the flow ends the master does not hold yet into {@code newHosts}.
   */
  static void flow(
      AgentSession s,
      FlowReport r,
      FlowRecord known,
      Set<Long> seen,
      HostRefs hosts,
      Set<String> newHosts,
      Limits limits)
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
      limits.name("flow " + id + ": spec.coflow_id", spec.getCoflowId());
      limits.name("flow " + id + ": spec.src_host", spec.getSrcHost());
      limits.name("flow " + id + ": spec.dst_host", spec.getDstHost());
      limits.attributes("flow " + id + ": spec.attributes", spec.getAttributesMap());
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
                + Printable.of(spec.getCoflowId(), 100)
                + "' "
                + Printable.of(spec.getSrcHost(), 100)
                + "->"
                + Printable.of(spec.getDstHost(), 100)
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

  /** Validates a registration and returns its sizes per host pair (summed over duplicates). */
  static Map<HostPair, Long> registration(RegisterCoflowRequest req, Limits limits)
      throws StatusException {
    requireNonEmpty(req.getCoflowId(), "coflow_id", "the coflow's id (Spark: app id + shuffle id)");
    limits.name("coflow_id", req.getCoflowId());
    limits.name("coflow '" + req.getCoflowId() + "': name", req.getName());
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
    if (req.getSizesCount() > limits.maxPairSizes) {
      throw Limits.exhausted(
          "coflow '"
              + req.getCoflowId()
              + "' declares "
              + req.getSizesCount()
              + " pair sizes, over "
              + MasterConfig.MAX_PAIR_SIZES.key()
              + "="
              + limits.maxPairSizes);
    }
    Map<HostPair, Long> sizes = new HashMap<>();
    for (PairSize p : req.getSizesList()) {
      String where = "coflow '" + req.getCoflowId() + "': sizes.";
      requireNonEmpty(p.getSrcHost(), where + "src_host", "a host id");
      requireNonEmpty(p.getDstHost(), where + "dst_host", "a host id");
      limits.name(where + "src_host", p.getSrcHost());
      limits.name(where + "dst_host", p.getDstHost());
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
    return sizes;
  }

  static void requireNonEmpty(String value, String field, String what) throws StatusException {
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

  static StatusException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asException();
  }
}
