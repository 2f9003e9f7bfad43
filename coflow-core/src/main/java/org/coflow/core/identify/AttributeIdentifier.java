package org.coflow.core.identify;

import java.util.ArrayList;
import java.util.List;

/**
 * Groups id-less flows by one attribute: a flow whose attributes carry {@code attribute} joins the
 * coflow {@code attribute=value}; any other flow forms a coflow of its own ({@code flow:host/id}),
 * so that it is scheduled like an independent flow rather than merged by guesswork.
 */
public final class AttributeIdentifier implements CoflowIdentifier {
  private final String attribute;

  public AttributeIdentifier(String attribute) {
    this.attribute = attribute;
  }

  @Override
  public List<String> identify(List<Arrival> arrivals, long roundMillis) {
    List<String> ids = new ArrayList<>(arrivals.size());
    for (Arrival a : arrivals) {
      String value = attribute.isEmpty() ? null : a.attributes().get(attribute);
      ids.add(
          value != null && !value.isEmpty()
              ? attribute + "=" + value
              : "flow:" + a.reporter() + "/" + a.flowId());
    }
    return ids;
  }
}
