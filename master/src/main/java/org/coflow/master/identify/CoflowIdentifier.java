package org.coflow.master.identify;

import java.util.Map;

/**
 * Groups flows that arrive without a coflow id into coflows ("coflow identification in the dark",
 * CODA). The master calls it on its scheduling thread, once for every new flow without an id,
 * before the flow is scheduled; the returned id is final for that flow.
 *
 * <p>The identification issue supplies CODA's clustering; until then {@link AttributeIdentifier}
 * is the documented fallback.
 */
public interface CoflowIdentifier {

  /**
   * @param reporter host id of the agent that reported the flow
   * @param flowId the flow's id within the reporter's session
   * @param srcHost sending host id
   * @param dstHost receiving host id
   * @param startMillis when the flow started (epoch milliseconds, the agent's clock)
   * @param attributes the flow's identification attributes (never null)
   * @return the coflow id for the flow, never empty
   */
  String identify(String reporter, long flowId, String srcHost, String dstHost, long startMillis,
      Map<String, String> attributes);
}
