package org.coflow.courier.adapt;

/**
 * Chooses a host's connection budget (Courier's MaxNum) from what the host observes; Courier leaves
 * the choice to operators and future work (seed 003, §4.2.3 and §6.4). Pure: one {@link Sample} per
 * interval in, the budget out; the agent feeds it ({@link MaxNumController}).
 *
 * <p>The rule is AIMD on the receiver's loss signal, guarded by goodput:
 *
 * <ul>
 *   <li><b>Loss</b> (segments that arrived out of order, i.e. after a drop, per segment received,
 *       above {@code lossHigh}): halve the budget. Fewer concurrent connections into this host
 *       means a shorter queue at its switch port, which is what loses the packets (incast).
 *   <li><b>An increase that cost goodput</b> (goodput fell by more than {@link #GOODPUT_DROP} in
 *       the interval after it): take it back, and wait {@link #HOLD_AFTER_REVERT} intervals.
 *   <li><b>Otherwise grow by one</b> while the budget binds (blocks wait for a connection it does
 *       not allow) and loss is below a tenth of {@code lossHigh}: more connections help only while
 *       flows wait for them, and each try is checked by the goodput guard the next interval.
 * </ul>
 *
 * An interval with nothing received and nothing waiting says nothing and changes nothing.
 */
public final class AdaptiveMaxNum {
  /** A relative fall of goodput that makes an increase count as harmful. */
  static final double GOODPUT_DROP = 0.15;

  /** Intervals without growth after a halving or a revert, for the queues to drain. */
  static final int HOLD_AFTER_LOSS = 2;

  static final int HOLD_AFTER_REVERT = 4;

  /**
   * What the host saw in one interval.
   *
   * @param goodput bytes per second received from other hosts' agents
   * @param loss out-of-order segments per segment received; NaN where the kernel's counters cannot
   *     be read (the controller then goes by goodput alone)
   * @param binds whether blocks waited for a connection the budget did not allow
   */
  public static final class Sample {
    private final double goodput;
    private final double loss;
    private final boolean binds;

    public Sample(double goodput, double loss, boolean binds) {
      this.goodput = goodput;
      this.loss = loss;
      this.binds = binds;
    }

    double goodput() {
      return goodput;
    }

    double loss() {
      return loss;
    }

    boolean binds() {
      return binds;
    }
  }

  private final int max;
  private final double lossHigh;
  private int budget;
  private int hold;
  private boolean increased;
  private double goodputBeforeIncrease;

  /**
   * @param start the first budget (the configured MaxNum)
   * @param max the largest budget it may choose
   * @param lossHigh the loss signal above which it halves
   */
  public AdaptiveMaxNum(int start, int max, double lossHigh) {
    if (max < 1 || start < 1) {
      throw new IllegalArgumentException(
          "budgets must be at least 1, got start " + start + ", max " + max);
    }
    this.max = max;
    this.lossHigh = lossHigh;
    this.budget = Math.min(start, max);
  }

  public int budget() {
    return budget;
  }

  /** The budget for the next interval, given what the last one showed. */
  public int next(Sample s) {
    boolean active = s.goodput() > 0 || s.binds();
    if (!active) {
      increased = false;
      return budget;
    }
    boolean holding = hold > 0;
    if (holding) {
      hold--;
    }
    boolean lossKnown = !Double.isNaN(s.loss());
    if (lossKnown && s.loss() > lossHigh) {
      budget = Math.max(1, budget / 2);
      increased = false;
      hold = HOLD_AFTER_LOSS;
      return budget;
    }
    if (increased && s.goodput() < goodputBeforeIncrease * (1 - GOODPUT_DROP)) {
      budget = Math.max(1, budget - 1);
      increased = false;
      hold = HOLD_AFTER_REVERT;
      return budget;
    }
    increased = false;
    if (!holding && s.binds() && budget < max && (!lossKnown || s.loss() < lossHigh / 10)) {
      goodputBeforeIncrease = s.goodput();
      budget++;
      increased = true;
    }
    return budget;
  }
}
