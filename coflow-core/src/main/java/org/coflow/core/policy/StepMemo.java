package org.coflow.core.policy;

import org.coflow.core.model.Coflow;

/**
 * What an {@link Allocator} remembers of one coflow's last step of one kind, to replay it or redo
 * it cheaply at the next decision.
 *
 * <p>A step of one coflow (max-min fair sharing, greedy allocation, backfill of its active flows on
 * the residual capacity, or max-min fair sharing by groups of its flows, given the groups) depends
 * only on the coflow's active flows, in their order, and on the residual capacity at the ports they
 * use. When neither changed since the coflow's last step of the same kind, the step's outcome is
 * replayed instead of recomputed: the same rates added (bit for bit) and the same residuals left,
 * at the cost of the coflow's ports and its moving flows. Between two events of a fluid replay most
 * coflows are in that case. A coflow's backfill is remembered apart from its policy step, which
 * comes first in the same decision.
 */
final class StepMemo {
  static final int MAX_MIN = 1;
  static final int GREEDY = 2;
  static final int BACKFILL = 3;
  static final int GROUPS = 4;

  int kind;

  /**
   * The {@link Allocator}'s decision a max-min or backfill step was last made in (replayed, redone
   * or computed).
   */
  long decision = Long.MIN_VALUE;

  /** The coflow's {@link Coflow#activeChanges} when the step was computed. */
  long changes = -1;

  /**
   * The resources of the coflow's ports with active flows, and their residuals before and after.
   */
  int[] resources = new int[0];

  int size;
  double[] before = new double[0];
  double[] after = new double[0];

  /** The positions of the flows that got a rate, and those rates. */
  int[] moving = new int[0];

  double[] rates = new double[0];
  int moved;

  /** For a step of groups: the group of each active flow, by position. */
  int[] groupOf = new int[0];

  /**
   * For a greedy step: which ends of each moving flow were saturated once it had its rate (1 the
   * sender, 2 the receiver, 3 both).
   */
  byte[] saturated = new byte[0];

  /**
   * For a water-filling step: whether its rise below is known (its flows all got a rate), so that
   * {@link Refill} can redo it.
   */
  boolean riseKnown;

  /** The resources the rise started with, in their order, and their counts of flows. */
  int riseSize;

  int[] riseLive = new int[0];
  int[] riseCounts = new int[0];

  /**
   * The saturations, in order: saturation e saturated resource {@code eventResource[e]} and froze
   * the flows whose other ends are {@code otherEnds[eventEnd[e - 1] .. eventEnd[e])} (-1 for a flow
   * that has finished since).
   */
  int events;

  int[] eventResource = new int[0];
  int[] eventEnd = new int[0];
  int[] otherEnds = new int[0];
  int others;

  /** Per moving flow: the saturation that froze it, and its entry in {@link #otherEnds}. */
  int[] event = new int[0];

  int[] slot = new int[0];

  /** Whether the saturations were last noted by a redo in another order ({@link Refill}). */
  boolean reorderedByRedo;

  /** Whether the rise's resources were listed by a port scan (not in the order flows came). */
  boolean riseByPorts;

  /** For a step of groups: the step of each group, on the residuals the groups before left. */
  StepMemo[] groups = new StepMemo[0];

  /**
   * Notes the coflow's flows and the residuals at their ports ({@code res}, uplinks then {@code
   * ports} downlinks) as the step's inputs.
   */
  void noteStart(Coflow c, double[] res, int ports) {
    changes = c.activeChanges();
    int n = 0;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      if (c.activeFlowsFrom(c.sender(ps)) > 0) {
        n++;
      }
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      if (c.activeFlowsTo(c.receiver(rs)) > 0) {
        n++;
      }
    }
    if (resources.length < n) {
      resources = new int[n];
      before = new double[n];
      after = new double[n];
    }
    int j = 0;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0) {
        resources[j++] = p;
      }
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0) {
        resources[j++] = ports + p;
      }
    }
    size = n;
    for (j = 0; j < n; j++) {
      before[j] = res[resources[j]];
    }
  }

  /** Notes the residuals the step left at the ports it started from. */
  void noteResiduals(double[] res) {
    for (int j = 0; j < size; j++) {
      after[j] = res[resources[j]];
    }
  }

  /** True if the residuals at the step's ports are those it started from, bit for bit. */
  boolean sameResiduals(double[] res) {
    for (int j = 0; j < size; j++) {
      if (res[resources[j]] != before[j]) {
        return false;
      }
    }
    return true;
  }

  /** True if the same ports have capacity left as when the step started (amounts may differ). */
  boolean sameFreePorts(double[] res) {
    for (int j = 0; j < size; j++) {
      if ((res[resources[j]] > PortBudget.EPS) != (before[j] > PortBudget.EPS)) {
        return false;
      }
    }
    return true;
  }

  /**
   * True if every change to the coflow's active flows since the step was a flow finishing, and the
   * coflow still remembers them all.
   */
  boolean onlyFinishedSince(Coflow c) {
    for (long change = changes + 1; change <= c.activeChanges(); change++) {
      if (!c.changeKnown(change) || c.changeGone(change) < 0) {
        return false;
      }
    }
    return true;
  }

  /** Which ends of a flow that just took its rate are saturated: see {@link #saturated}. */
  static byte saturatedEnds(PortBudget budget, int src, int dst) {
    return (byte)
        ((budget.up(src) <= PortBudget.EPS ? 1 : 0) | (budget.down(dst) <= PortBudget.EPS ? 2 : 0));
  }

  /** Makes {@link #moving} and {@link #rates} hold at least {@code n} entries. */
  void ensureMoving(int n) {
    if (moving.length < n) {
      moving = new int[n];
      rates = new double[n];
    }
  }

  /** {@link #ensureMoving}, and {@link #saturated} as long, for a greedy step. */
  void ensureGreedy(int n) {
    ensureMoving(n);
    if (saturated.length < n) {
      saturated = new byte[moving.length];
    }
  }
}
