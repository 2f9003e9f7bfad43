package org.coflow.core.policy;

/**
 * How a policy that keeps pair counts (Creek's levels, Baraat's first class) filled them, for tests
 * and benchmarks: from the counts afresh, keeping the rates of the last fill, or flow by flow.
 */
public final class FillCounts {
  long counted;
  long kept;
  long byFlow;

  /** Fills made from the kept pair counts afresh. */
  public long counted() {
    return counted;
  }

  /** Fills that kept the rates of the last fill from the counts (nothing changed since). */
  public long kept() {
    return kept;
  }

  /** Fills made flow by flow (too few flows for the counts, or counting off). */
  public long byFlow() {
    return byFlow;
  }
}
