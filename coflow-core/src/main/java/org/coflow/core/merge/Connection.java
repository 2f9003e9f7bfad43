package org.coflow.core.merge;

/**
 * One data connection Courier opens (Alg. 3's output): a unified flow, or a part of one after
 * splitting, with its share of the unified flow's bytes and rate.
 *
 * @param <K> the caller's flow handle
 */
public final class Connection<K> {
  private final UnifiedFlow<K> flow;
  private final double size;
  private final double rate;

  Connection(UnifiedFlow<K> flow, double size, double rate) {
    this.flow = flow;
    this.size = size;
    this.rate = rate;
  }

  public UnifiedFlow<K> flow() {
    return flow;
  }

  /** Bytes this connection carries. */
  public double size() {
    return size;
  }

  /** Rate share (RATE policies). */
  public double rate() {
    return rate;
  }

  /** Priority class, inherited from the unified flow. */
  public int order() {
    return flow.order();
  }

  Connection<K>[] split() {
    @SuppressWarnings("unchecked")
    Connection<K>[] halves =
        new Connection[] {
          new Connection<>(flow, size / 2, rate / 2), new Connection<>(flow, size / 2, rate / 2)
        };
    return halves;
  }
}
