package org.coflow.master.policy;

import java.util.Arrays;
import org.coflow.api.model.ClusterState;

/**
 * A policy's decision for every active flow of a {@link ClusterState}, indexed by
 * {@link org.coflow.api.model.Flow#index()}: a rate in bytes/s and a priority class.
 *
 * <p>Priority classes: 0 is the most important; flows of equal importance (for instance all flows
 * of one coflow under a coflow-ordering policy, or every flow under fair sharing) share a class.
 * {@link #order()} lists every active flow once, most important first; it is the order in which the
 * shared backfill hands out leftover capacity and in which Courier selects unified flows.
 *
 * <p>A schedule is valid only for the state it was computed from: the next change of the state
 * may renumber flows.
 */
public final class Schedule {
  private final double[] rate;
  private final int[] priority;
  private final int[] order;
  private int orderSize;

  public Schedule(int flows) {
    this.rate = new double[flows];
    this.priority = new int[flows];
    this.order = new int[flows];
  }

  public static Schedule empty(ClusterState state) {
    return new Schedule(state.flows().size());
  }

  public int size() {
    return rate.length;
  }

  public double rate(int flow) {
    return rate[flow];
  }

  public void setRate(int flow, double bytesPerSecond) {
    rate[flow] = bytesPerSecond;
  }

  public void addRate(int flow, double bytesPerSecond) {
    rate[flow] += bytesPerSecond;
  }

  public int priority(int flow) {
    return priority[flow];
  }

  /** Appends a flow to the priority order with the given class; each flow must be appended once. */
  public void append(int flow, int priorityClass) {
    priority[flow] = priorityClass;
    order[orderSize++] = flow;
  }

  /** Flow indices, most important first (length {@link #orderSize()}). Do not modify. */
  public int[] order() {
    return order;
  }

  public int orderSize() {
    return orderSize;
  }

  /** A copy of the rates, for tests and reports. */
  public double[] rates() {
    return Arrays.copyOf(rate, rate.length);
  }
}
