package org.coflow.core.policy;

import org.coflow.core.model.Coflow;

/**
 * What one decision of {@link Creek} gives a simulator that moves flows by (level, sender,
 * receiver) group ({@link Creek#groups}): every group's rate, each (coflow, receiver)'s level and
 * summed rate, valid until the next decision.
 */
public final class CreekGroups {
  private final Creek creek;
  private boolean perFlow;

  CreekGroups(Creek creek) {
    this.creek = creek;
  }

  /** The level of every active flow of {@code c} into {@code receiver} (0 is served first). */
  public int levelOf(Coflow c, int receiver) {
    return creek.levelOf(c, receiver);
  }

  /** The rate of each flow of the group at {@code level} from {@code src} to {@code dst}. */
  public double rate(int level, int src, int dst) {
    return creek.counts().rate(level, src, dst);
  }

  /**
   * Every group's rate per flow, by {@link #key} ({@link #rate}; read-only, valid until the next
   * decision): one array, so that a simulator reads the rates of its groups by their keys, not by
   * three of their numbers each.
   */
  public double[] rates() {
    return creek.counts().rates();
  }

  /**
   * The key of the group at {@code level} from {@code src} to {@code dst} in {@link #rates}: {@code
   * level * ports^2 + src * ports + dst}, for the ports of the fabric of the last decision; below
   * {@code levels * ports^2} for this Creek's levels.
   */
  public int key(int level, int src, int dst) {
    return creek.counts().base(level) + src * creek.counts().ports() + dst;
  }

  /** The rate {@code c}'s active flows into {@code receiver} receive together. */
  public double rateTo(Coflow c, int receiver) {
    return creek.rateTo(c, receiver);
  }

  /**
   * Whether the last decision left capacity at both ends of some flow, so that the backfill may
   * give flows of one group different rates: they are then in the schedule, flow by flow, and the
   * groups do not describe the decision. Each level's water-filling leaves every flow it fills a
   * saturated end, so Creek's decisions never do.
   */
  public boolean perFlow() {
    return perFlow;
  }

  void perFlow(boolean on) {
    perFlow = on;
  }
}
