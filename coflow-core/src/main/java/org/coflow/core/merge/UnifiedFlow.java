package org.coflow.core.merge;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * All flows between one host pair merged into one (Courier Alg. 2): what one unified connection
 * carries now, and what waits behind it.
 *
 * <p>RATE policies: every flow is carried, the unified rate and size are the sums (Courier Eq. 2)
 * and the receiver demultiplexes bytes in proportion to the members' rates. ORDER policies: only
 * the flows of the most important class are carried (their sizes summed); the others are {@link
 * #deferred()} until those finish.
 *
 * @param <K> the caller's flow handle
 */
public final class UnifiedFlow<K> {
  private final int src;
  private final int dst;
  private double size;
  private double rate;
  private int order;
  private final List<FlowDemand<K>> carried = new ArrayList<>(2);
  private List<FlowDemand<K>> deferred = Collections.emptyList();

  UnifiedFlow(FlowDemand<K> first) {
    this.src = first.src();
    this.dst = first.dst();
    this.size = first.size();
    this.rate = first.rate();
    this.order = first.order();
    carried.add(first);
  }

  public int src() {
    return src;
  }

  public int dst() {
    return dst;
  }

  /** Bytes the unified flow carries now. */
  public double size() {
    return size;
  }

  /** Sum of the carried flows' rates (RATE policies). */
  public double rate() {
    return rate;
  }

  /** Priority class of the carried flows (0 = most important). */
  public int order() {
    return order;
  }

  /** Flows sent on this unified flow now. */
  public List<FlowDemand<K>> carried() {
    return Collections.unmodifiableList(carried);
  }

  /** Flows of a less important class that wait until the carried ones finish (ORDER only). */
  public List<FlowDemand<K>> deferred() {
    return Collections.unmodifiableList(deferred);
  }

  private List<FlowDemand<K>> deferredList() {
    if (!(deferred instanceof ArrayList)) {
      deferred = new ArrayList<>();
    }
    return deferred;
  }

  /** Courier Alg. 2, MergeFlow, rate-based branch. */
  void mergeRate(FlowDemand<K> f) {
    rate += f.rate();
    size += f.size();
    carried.add(f);
  }

  /** Courier Alg. 2, MergeFlow, order-based branch. */
  void mergeOrder(FlowDemand<K> f) {
    if (f.order() == order) {
      size += f.size();
      carried.add(f);
    } else if (f.order() < order) {
      deferredList().addAll(carried);
      carried.clear();
      carried.add(f);
      order = f.order();
      size = f.size();
      rate = f.rate();
    } else {
      deferredList().add(f);
    }
  }
}
