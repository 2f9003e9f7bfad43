package org.coflow.core.identify;

import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.CoflowExtension;

/**
 * Groups flows that arrive without a coflow id into coflows ("coflow identification in the dark",
 * CODA). The master calls it on its scheduling thread, once per round with that round's new flows
 * without an id, before they are scheduled; the returned ids are final for those flows. {@link
 * CodaCoflowIdentifier} is CODA's clustering (the default); {@link AttributeIdentifier} groups by
 * one flow attribute.
 */
public interface CoflowIdentifier {

  /**
   * A new flow without a coflow id.
   *
   * @param handle unique for the master's lifetime; names the flow in {@link #departed} and to the
   *     extension
   * @param reporter host id of the agent that reported the flow
   * @param flowId the flow's id within the reporter's session
   * @param srcHost sending host id
   * @param dstHost receiving host id
   * @param startMillis when the flow started (epoch milliseconds, the agent's clock)
   * @param attributes the flow's identification attributes (never null)
   */
  final class Arrival {
    private final long handle;
    private final String reporter;
    private final long flowId;
    private final String srcHost;
    private final String dstHost;
    private final long startMillis;
    private final Map<String, String> attributes;

    public Arrival(
        long handle,
        String reporter,
        long flowId,
        String srcHost,
        String dstHost,
        long startMillis,
        Map<String, String> attributes) {
      this.handle = handle;
      this.reporter = reporter;
      this.flowId = flowId;
      this.srcHost = srcHost;
      this.dstHost = dstHost;
      this.startMillis = startMillis;
      this.attributes = attributes;
    }

    public long handle() {
      return handle;
    }

    public String reporter() {
      return reporter;
    }

    public long flowId() {
      return flowId;
    }

    public String srcHost() {
      return srcHost;
    }

    public String dstHost() {
      return dstHost;
    }

    public long startMillis() {
      return startMillis;
    }

    public Map<String, String> attributes() {
      return attributes;
    }

    @Override
    public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof Arrival)) {
        return false;
      }
      Arrival x = (Arrival) o;
      return handle == x.handle
          && java.util.Objects.equals(reporter, x.reporter)
          && flowId == x.flowId
          && java.util.Objects.equals(srcHost, x.srcHost)
          && java.util.Objects.equals(dstHost, x.dstHost)
          && startMillis == x.startMillis
          && java.util.Objects.equals(attributes, x.attributes);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(
          handle, reporter, flowId, srcHost, dstHost, startMillis, attributes);
    }

    @Override
    public String toString() {
      return "Arrival[handle="
          + handle
          + ", reporter="
          + reporter
          + ", flowId="
          + flowId
          + ", srcHost="
          + srcHost
          + ", dstHost="
          + dstHost
          + ", startMillis="
          + startMillis
          + ", attributes="
          + attributes
          + "]";
    }
  }

  /**
   * The coflow ids of one round's arrivals, in order; never empty strings.
   *
   * @param roundMillis the round's time, epoch milliseconds on the master's clock (the start of a
   *     flow reported without one): time comes in, the identifier reads no clock
   */
  List<String> identify(List<Arrival> arrivals, long roundMillis);

  /** A flow identified earlier left the model (finished, dropped, or had nothing to send). */
  default void departed(long handle) {}

  /**
   * Late binding's extension of identified coflows, or null if this identifier has no notion of
   * distance between flows.
   *
   * @param handleOf the handle of a model flow, or -1 for a flow that came with its coflow id
   */
  default CoflowExtension extension(ToLongFunction<Flow> handleOf) {
    return null;
  }
}
