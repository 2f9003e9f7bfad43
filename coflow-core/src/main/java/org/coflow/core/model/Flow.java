package org.coflow.core.model;

/**
 * One flow of a coflow: the bytes one receiver (reducer) fetches from one sender (map host), from
 * port {@link #src()} to port {@link #dst()}.
 *
 * <p>Sizes are in bytes, as doubles so that the fluid simulator can move fractional bytes; the live
 * master stores whole byte counts in them exactly (below 2^53). A flow whose size is not known (a
 * non-clairvoyant report) has {@link #size()} = {@link #UNKNOWN}.
 */
public final class Flow {
  /** Size of a flow nobody told us the size of. */
  public static final double UNKNOWN = -1;

  private final long id;
  private final ClusterState state;
  private final Coflow coflow;
  private final int src;
  private final int dst;
  private double size;
  private final double start;
  private double sent;
  private boolean finished;

  /** Position in {@link ClusterState#flows()} while active, -1 otherwise. */
  int index = -1;

  /** Position in {@link Coflow#activeFlows()} while active, -1 otherwise. */
  int coflowIndex = -1;

  Flow(long id, ClusterState state, Coflow coflow, int src, int dst, double size, double start) {
    this.id = id;
    this.state = state;
    this.coflow = coflow;
    this.src = src;
    this.dst = dst;
    this.size = size;
    this.start = start;
  }

  public long id() {
    return id;
  }

  public Coflow coflow() {
    return coflow;
  }

  public int src() {
    return src;
  }

  public int dst() {
    return dst;
  }

  /** Total size in bytes, or {@link #UNKNOWN}. */
  public double size() {
    return size;
  }

  public boolean sizeKnown() {
    return size >= 0;
  }

  /** When the flow started, in seconds. */
  public double start() {
    return start;
  }

  /** Bytes sent so far. */
  public double sent() {
    return finished ? sent : state.sentAt(index);
  }

  /** Bytes still to send, or {@link #UNKNOWN} when the size is unknown. */
  public double remaining() {
    return size >= 0 ? Math.max(0, size - sent()) : UNKNOWN;
  }

  public boolean finished() {
    return finished;
  }

  /** Dense position of this flow among the active flows of its {@link ClusterState}. */
  public int index() {
    return index;
  }

  /**
   * Position of this flow among its coflow's active flows ({@code coflow().activeIndex(position())
   * == index()}), -1 once it finished. It changes when another flow of the coflow finishes.
   */
  public int position() {
    return coflowIndex;
  }

  void grow(double newSize) {
    size = newSize;
  }

  void addSentAfterEnd(double bytes) {
    sent += bytes;
  }

  /** Marks the flow finished with its final count of bytes sent (kept by the state until now). */
  void finishWith(double bytesSent) {
    sent = bytesSent;
    finished = true;
  }

  @Override
  public String toString() {
    return "Flow["
        + coflow.id()
        + " "
        + src
        + "->"
        + dst
        + " sent="
        + (long) sent()
        + "/"
        + (long) size
        + "]";
  }
}
