package org.coflow.api.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A coflow: the flows of one shuffle (one Spark shuffle, one MapReduce job), which the job waits
 * for as a whole. Its completion time (CCT) is when its last flow finishes.
 *
 * <p>Mutable bookkeeping ({@link #bytesSent()}, the number of unfinished flows) is owned by the
 * {@link ClusterState} that holds the coflow; policies only read it.
 */
public final class Coflow {
  private final String id;
  private final long seq;
  private final double arrival;
  private final double weight;
  private final List<Flow> flows = new ArrayList<>();
  private final List<Flow> flowsView = Collections.unmodifiableList(flows);
  private final List<Flow> active = new ArrayList<>();
  private final List<Flow> activeView = Collections.unmodifiableList(active);
  private double bytesSent;
  private int unfinished;
  private double finishTime = Double.NaN;

  /**
   * @param id stable identifier (Spark: application id + shuffle id; MapReduce: job id)
   * @param seq arrival sequence number: lower means earlier; ties in {@code arrival} are broken by it
   * @param arrival arrival time in seconds
   * @param weight relative importance for weighted policies (1 for all in the trace)
   */
  public Coflow(String id, long seq, double arrival, double weight) {
    if (!(weight > 0)) {
      throw new IllegalArgumentException("coflow " + id + ": weight must be positive, got " + weight);
    }
    this.id = id;
    this.seq = seq;
    this.arrival = arrival;
    this.weight = weight;
  }

  public String id() {
    return id;
  }

  public long seq() {
    return seq;
  }

  public double arrival() {
    return arrival;
  }

  public double weight() {
    return weight;
  }

  /** All flows ever added, finished or not. */
  public List<Flow> flows() {
    return flowsView;
  }

  /** Unfinished flows, in no particular order (removal moves the last flow into the gap). */
  public List<Flow> activeFlows() {
    return activeView;
  }

  /** Bytes sent so far, summed over all flows of the coflow (cluster-wide). */
  public double bytesSent() {
    return bytesSent;
  }

  /** Flows that still have bytes to send. */
  public int unfinishedFlows() {
    return unfinished;
  }

  /** True when every flow is known in size (a clairvoyant coflow). */
  public boolean sizesKnown() {
    for (Flow f : flows) {
      if (!f.sizeKnown()) {
        return false;
      }
    }
    return true;
  }

  /** Sum of the known flow sizes (bytes); flows of unknown size count what they have sent. */
  public double totalBytes() {
    double total = 0;
    for (Flow f : flows) {
      total += f.sizeKnown() ? f.size() : f.sent();
    }
    return total;
  }

  /** Completion time in seconds, or NaN while unfinished. */
  public double finishTime() {
    return finishTime;
  }

  void addFlow(Flow f) {
    flows.add(f);
    f.coflowIndex = active.size();
    active.add(f);
    unfinished++;
  }

  void addSent(double bytes) {
    bytesSent += bytes;
  }

  void flowFinished(Flow f, double now) {
    Flow last = active.remove(active.size() - 1);
    if (last != f) {
      active.set(f.coflowIndex, last);
      last.coflowIndex = f.coflowIndex;
    }
    f.coflowIndex = -1;
    unfinished--;
    if (unfinished == 0) {
      finishTime = now;
    }
  }

  @Override
  public String toString() {
    return "Coflow[" + id + ", flows=" + flows.size() + ", sent=" + (long) bytesSent + "]";
  }
}
