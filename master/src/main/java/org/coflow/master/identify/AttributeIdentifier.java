package org.coflow.master.identify;

import java.util.Map;

/**
 * The fallback identifier: a flow whose attributes carry {@code attribute} joins the coflow
 * {@code attribute=value}; any other flow forms a coflow of its own ({@code flow:host/id}), so that
 * an unidentified flow is scheduled like an independent flow rather than merged by guesswork.
 */
public final class AttributeIdentifier implements CoflowIdentifier {
  private final String attribute;

  public AttributeIdentifier(String attribute) {
    this.attribute = attribute;
  }

  @Override
  public String identify(String reporter, long flowId, String srcHost, String dstHost,
      long startMillis, Map<String, String> attributes) {
    String value = attribute.isEmpty() ? null : attributes.get(attribute);
    if (value != null && !value.isEmpty()) {
      return attribute + "=" + value;
    }
    return "flow:" + reporter + "/" + flowId;
  }
}
