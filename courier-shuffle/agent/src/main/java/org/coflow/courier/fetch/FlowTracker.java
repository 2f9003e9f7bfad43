package org.coflow.courier.fetch;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.coflow.api.client.MasterClient;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.courier.flow.FlowKey;

/**
 * The flows this agent fetches, as the master sees them: one flow per coflow and source host
 * (Courier's unified flow of a host pair, per coflow), with the bytes received so far and, when
 * every block's size is known (Spark map statuses; else learned from each block's start), the bytes
 * still to come. {@link #report} hands changes to the {@link MasterClient}; a flow with no block
 * left in flight is finished. Thread-safe.
 */
public final class FlowTracker {
  private final String hostId;
  private final Map<FlowKey, Flow> flows = new HashMap<>();
  private final Map<Long, Flow> byId = new HashMap<>();
  private long nextId = 1;

  private static final class Flow {
    final long id;
    final FlowKey key;
    long expected;
    boolean sizesKnown = true;
    long received;
    int open;
    boolean changed = true;

    Flow(long id, FlowKey key) {
      this.id = id;
      this.key = key;
    }
  }

  public FlowTracker(String hostId) {
    this.hostId = hostId;
  }

  private Flow flow(FlowKey key) {
    return flows.computeIfAbsent(
        key,
        k -> {
          Flow f = new Flow(nextId++, k);
          byId.put(f.id, f);
          return f;
        });
  }

  /** A block of flow {@code key} (its coflow, from {@code block}'s host) was requested. */
  public synchronized void requested(FlowKey key, RemoteBlock block) {
    Flow f = flow(key);
    f.open++;
    if (block.getSize() >= 0) {
      f.expected += block.getSize();
    } else {
      f.sizesKnown = false;
    }
    f.changed = true;
  }

  /** The serving agent announced a block of unknown size. */
  public synchronized void learned(FlowKey key, long length) {
    Flow f = flows.get(key);
    if (f != null && !f.sizesKnown) {
      f.expected += length;
      f.changed = true;
    }
  }

  /** Bytes of flow {@code key} arrived. */
  public synchronized void received(FlowKey key, long bytes) {
    Flow f = flows.get(key);
    if (f != null) {
      f.received += bytes;
      f.changed = true;
    }
  }

  /** A block ended (delivered or failed). */
  public synchronized void ended(FlowKey key) {
    Flow f = flows.get(key);
    if (f != null) {
      f.open--;
      f.changed = true;
    }
  }

  /** The flow the master knows as {@code id} (coflow and source host), or null. */
  public synchronized FlowKey keyOf(long id) {
    Flow f = byId.get(id);
    return f == null ? null : f.key;
  }

  /** Hands every changed flow to {@code master}; finished flows are reported once, then dropped. */
  public synchronized void report(MasterClient master) {
    for (Iterator<Flow> it = flows.values().iterator(); it.hasNext(); ) {
      Flow f = it.next();
      if (!f.changed) {
        continue;
      }
      f.changed = false;
      if (f.open == 0) {
        master.updateFlow(f.id, spec(f), f.received, f.sizesKnown ? 0 : -1);
        master.finishFlow(f.id);
        it.remove();
        byId.remove(f.id);
        continue;
      }
      long remaining = f.sizesKnown ? Math.max(0, f.expected - f.received) : -1;
      master.updateFlow(f.id, spec(f), f.received, remaining);
    }
  }

  private FlowSpec spec(Flow f) {
    return FlowSpec.newBuilder()
        .setCoflowId(f.key.coflow())
        .setSrcHost(f.key.peer())
        .setDstHost(hostId)
        .setStartTimeMs(System.currentTimeMillis())
        .build();
  }
}
