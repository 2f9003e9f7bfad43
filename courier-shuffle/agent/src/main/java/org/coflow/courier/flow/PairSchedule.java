package org.coflow.courier.flow;

/**
 * The master's decision for one flow: its priority (lower first) and, under a RATE policy, its pace
 * in bytes/s (0: not paced; the flow goes by its priority). Immutable.
 */
public final class PairSchedule {
  /** No decision: priority 0, unpaced. */
  public static final PairSchedule NONE = new PairSchedule(0, 0);

  private final int priority;
  private final double rate;

  private PairSchedule(int priority, double rate) {
    this.priority = priority;
    this.rate = rate;
  }

  public static PairSchedule of(int priority, double rate) {
    return new PairSchedule(priority, Math.max(0, rate));
  }

  public int priority() {
    return priority;
  }

  /** Bytes/s, or 0 when not paced. */
  public double rate() {
    return rate;
  }

  public boolean paced() {
    return rate > 0;
  }

  /** The same priority, unpaced. */
  public PairSchedule unpaced() {
    return rate == 0 ? this : new PairSchedule(priority, 0);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof PairSchedule)) {
      return false;
    }
    PairSchedule s = (PairSchedule) o;
    return priority == s.priority && Double.compare(rate, s.rate) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * priority + Double.hashCode(rate);
  }

  @Override
  public String toString() {
    return "priority=" + priority + (rate > 0 ? " rate=" + rate : "");
  }
}
