package org.coflow.courier.fetch;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.coflow.api.client.MasterClient;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.v1.FlowSpec;

/**
 * The flows this agent fetches, as the master sees them: one flow per coflow and source host
 * (Courier's unified flow of a host pair, per coflow), with the bytes received so far and, when
 * every block's size is known (Spark map statuses; else learned from each block's start), the
 * bytes still to come. {@link #report} hands changes to the {@link MasterClient}; a flow with no
 * block left in flight is finished. Thread-safe.
 */
public final class FlowTracker {
  private final String hostId;
  private final Map<String, Flow> flows = new HashMap<>();
  private final Map<Long, Flow> byId = new HashMap<>();
  private long nextId = 1;

  private static final class Flow {
    final long id;
    final String coflow;
    final String src;
    long expected;
    boolean sizesKnown = true;
    long received;
    int open;
    boolean changed = true;

    Flow(long id, String coflow, String src) {
      this.id = id;
      this.coflow = coflow;
      this.src = src;
    }
  }

  public FlowTracker(String hostId) {
    this.hostId = hostId;
  }

  private Flow flow(String coflow, String src) {
    return flows.computeIfAbsent(key(coflow, src), k -> {
      Flow f = new Flow(nextId++, coflow, src);
      byId.put(f.id, f);
      return f;
    });
  }

  /** A block of {@code coflow} was requested from {@code block}'s host. */
  public synchronized void requested(String coflow, RemoteBlock block) {
    Flow f = flow(coflow, block.getHostId());
    f.open++;
    if (block.getSize() >= 0) {
      f.expected += block.getSize();
    } else {
      f.sizesKnown = false;
    }
    f.changed = true;
  }

  /** The serving agent announced a block of unknown size. */
  public synchronized void learned(String coflow, String src, long length) {
    Flow f = flows.get(key(coflow, src));
    if (f != null && !f.sizesKnown) {
      f.expected += length;
      f.changed = true;
    }
  }

  /** The key of the flow of {@code coflow} from {@code src}, for {@link #received}. */
  public static String key(String coflow, String src) {
    return coflow + '\u0000' + src;
  }

  /** Bytes of the flow {@link #key keyed} {@code key} arrived (per chunk: the key is made once). */
  public synchronized void received(String key, long bytes) {
    Flow f = flows.get(key);
    if (f != null) {
      f.received += bytes;
      f.changed = true;
    }
  }

  /** A block ended (delivered or failed). */
  public synchronized void ended(String coflow, String src) {
    Flow f = flows.get(key(coflow, src));
    if (f != null) {
      f.open--;
      f.changed = true;
    }
  }

  /** The source host of flow {@code id}, or null. */
  public synchronized String srcOf(long id) {
    Flow f = byId.get(id);
    return f == null ? null : f.src;
  }

  /** The coflow of flow {@code id}, or null. */
  public synchronized String coflowOf(long id) {
    Flow f = byId.get(id);
    return f == null ? null : f.coflow;
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
    return FlowSpec.newBuilder().setCoflowId(f.coflow).setSrcHost(f.src).setDstHost(hostId)
        .setStartTimeMs(System.currentTimeMillis()).build();
  }
}
