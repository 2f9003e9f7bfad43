package org.coflow.core.model;

/**
 * What a policy's decision means to the data plane (Courier's {@code S.type()}).
 *
 * <ul>
 *   <li>{@link #RATE}: each flow has a rate in bytes/s; Courier sums the rates of the flows it
 *       merges between a host pair (Courier Eq. 2) and enforces them with token buckets.
 *   <li>{@link #ORDER}: each flow has a priority class; Courier sends the highest-priority flows of
 *       a host pair first and carries lower ones when those are done.
 * </ul>
 */
public enum PolicyType {
  RATE,
  ORDER
}
