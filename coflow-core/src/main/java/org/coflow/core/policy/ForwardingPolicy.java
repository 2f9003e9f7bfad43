package org.coflow.core.policy;

import java.util.Objects;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.PolicyType;

/**
 * A policy that passes every call on to another one: its name, type, decisions, recycled schedules
 * and next decision times. Wrappers (Courier's merging, test probes) override what they change.
 *
 * <p>{@link #movesAsDecided} is not passed on: a wrapper that changes the inner policy's rates
 * breaks that promise for it, so one that keeps them must say so by overriding it.
 */
public abstract class ForwardingPolicy implements SchedulingPolicy {
  protected final SchedulingPolicy inner;

  protected ForwardingPolicy(SchedulingPolicy inner) {
    this.inner = Objects.requireNonNull(inner, "inner policy");
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public PolicyType type() {
    return inner.type();
  }

  @Override
  public Schedule schedule(ClusterState state, double now) {
    return inner.schedule(state, now);
  }

  @Override
  public void recycle(Schedule done) {
    inner.recycle(done);
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    return inner.nextDecisionTime(state, schedule, now);
  }
}
