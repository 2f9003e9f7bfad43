package org.coflow.core.merge;

/**
 * One original flow as the scheduler decided it, the input of Courier's merge (the paper's ⟨addr,
 * size, rate, order⟩ tuple).
 *
 * <p>Order convention: {@code order} is a priority class where <em>0 is the most important</em> (a
 * smaller number is a "higher order" in the paper's words), the same convention as the master's
 * schedules.
 *
 * @param <K> the caller's handle for the flow (a fetch request, a simulated flow)
 */
public final class FlowDemand<K> {
  private final K key;
  private final int src;
  private final int dst;
  private final double size;
  private final double rate;
  private final int order;

  /**
   * @param size bytes still to send (0 or more)
   * @param rate bytes/s from a RATE policy (0 for ORDER policies)
   * @param order priority class from an ORDER policy (0 = most important)
   */
  public FlowDemand(K key, int src, int dst, double size, double rate, int order) {
    if (size < 0 || rate < 0 || order < 0) {
      throw new IllegalArgumentException(
          "flow "
              + key
              + " "
              + src
              + "->"
              + dst
              + ": size, rate and order must not be negative (size="
              + size
              + ", rate="
              + rate
              + ", order="
              + order
              + ")");
    }
    this.key = key;
    this.src = src;
    this.dst = dst;
    this.size = size;
    this.rate = rate;
    this.order = order;
  }

  public K key() {
    return key;
  }

  public int src() {
    return src;
  }

  public int dst() {
    return dst;
  }

  public double size() {
    return size;
  }

  public double rate() {
    return rate;
  }

  public int order() {
    return order;
  }
}
