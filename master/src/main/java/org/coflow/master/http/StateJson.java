package org.coflow.master.http;

import java.util.Map;
import org.coflow.core.json.JsonWriter;
import org.coflow.master.service.MasterSnapshot;

/** Renders a {@link MasterSnapshot} as the JSON of {@code /api/state}. */
public final class StateJson {
  private StateJson() {}

  public static String render(MasterSnapshot s) {
    StringBuilder sb = new StringBuilder(4096);
    JsonWriter w = new JsonWriter(sb);
    w.beginObject()
        .name("policy")
        .value(s.policy())
        .name("policyType")
        .value(s.policyType())
        .name("intervalMs")
        .value(s.intervalMs())
        .name("round")
        .value(s.round())
        .name("decisionP50Ms")
        .value(s.decisionP50Ms())
        .name("decisionP99Ms")
        .value(s.decisionP99Ms())
        .name("behindMs")
        .value(s.behindMs());
    w.name("agents").beginArray();
    for (MasterSnapshot.Agent a : s.agents()) {
      w.beginObject()
          .name("hostId")
          .value(a.hostId())
          .name("dataAddress")
          .value(a.dataAddress())
          .name("engineAddress")
          .value(a.engineAddress())
          .name("uplink")
          .value(a.uplink())
          .name("downlink")
          .value(a.downlink())
          .name("openedMillis")
          .value(a.openedMillis())
          .name("silentMs")
          .value(a.silentMs())
          .name("flows")
          .value(a.flows())
          .name("batches")
          .value(a.batches())
          .name("watching")
          .value(a.watching())
          .name("sharedHost")
          .value(a.sharedHost());
      w.name("labels").beginObject();
      for (Map.Entry<String, String> e : a.labels().entrySet()) {
        w.name(e.getKey()).value(e.getValue());
      }
      w.endObject().endObject();
    }
    w.endArray();
    w.name("hosts").beginArray();
    for (MasterSnapshot.Host h : s.hosts()) {
      w.beginObject()
          .name("id")
          .value(h.id())
          .name("uplink")
          .value(h.uplink())
          .name("downlink")
          .value(h.downlink())
          .name("allocatedSend")
          .value(h.allocatedSend())
          .name("allocatedReceive")
          .value(h.allocatedReceive())
          .name("measuredSend")
          .value(h.measuredSend())
          .name("measuredReceive")
          .value(h.measuredReceive())
          .endObject();
    }
    w.endArray();
    w.name("coflows").beginArray();
    for (MasterSnapshot.CoflowView c : s.coflows()) {
      w.beginObject()
          .name("id")
          .value(c.id())
          .name("name")
          .value(c.name())
          .name("ageSeconds")
          .value(c.ageSeconds())
          .name("bytesSent")
          .value(c.bytesSent())
          .name("knownBytes")
          .value(c.knownBytes())
          .name("sizesKnown")
          .value(c.sizesKnown())
          .name("width")
          .value(c.width())
          .name("senders")
          .value(c.senders())
          .name("receivers")
          .value(c.receivers())
          .name("weight")
          .value(c.weight())
          .name("priority")
          .value(c.priority())
          .name("rate")
          .value(c.rate())
          .name("flowsOmitted")
          .value(c.flowsOmitted());
      w.name("flows").beginArray();
      for (MasterSnapshot.FlowView f : c.flows()) {
        w.beginObject()
            .name("reporter")
            .value(f.reporter())
            .name("flowId")
            .value(f.flowId())
            .name("src")
            .value(f.src())
            .name("dst")
            .value(f.dst())
            .name("sent")
            .value(f.sent())
            .name("size")
            .value(f.size())
            .name("rate")
            .value(f.rate())
            .name("priority")
            .value(f.priority())
            .endObject();
      }
      w.endArray().endObject();
    }
    w.endArray().endObject();
    return sb.toString();
  }
}
