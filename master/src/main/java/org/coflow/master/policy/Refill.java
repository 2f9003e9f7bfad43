package org.coflow.master.policy;

import java.util.Arrays;
import org.coflow.api.model.Coflow;

/**
 * Redoes a coflow's water-filling step from the rise noted in its {@link StepMemo}, when its flows
 * are the same (or some have only finished) and the same ports have capacity left, at the cost of
 * the resources rather than the flows.
 *
 * <p>Not thread-safe: scratch arrays sized to the fabric.
 */
final class Refill {
  private final int ports;
  private final int[] live;
  private final int[] due;
  private final int[] riseCount;

  /** Per resource: its index in the memo's rise, while flows that finished are dropped. */
  private final int[] riseIndex;

  private double[] riseSaved = new double[0];

  /** Per saturation of a rise being redone: the water level it happened at. */
  private double[] eventAt = new double[16];

  /** Per position of a coflow's active flows: the memo's moving flow there, or -1. */
  private int[] memberAt = new int[0];

  /** The memo whose rise is being redone; its saturations redone so far (-1: another one came). */
  private StepMemo redoing;

  private int redone;
  private int redoneOthers;
  private final WaterFilling.Saturation resaturate = this::resaturate;

  /**
   * The moving flows (by index into the memo's) whose rates the last step {@link #refilled}
   * changed: {@code changedAt[0 .. changes)}, in the memo's order.
   */
  private int[] changedAt = new int[16];

  private int changes;

  private long refills;
  private long abandonedRefills;
  private long refillsAfterFinishes;

  Refill(int ports) {
    this.ports = ports;
    this.live = new int[2 * ports];
    this.due = new int[2 * ports];
    this.riseCount = new int[2 * ports];
    this.riseIndex = new int[2 * ports];
  }

  /**
   * How many of its moving flows the last step that was {@link #refilled} gave another rate than
   * the step it was redone from (the flows that finished since aside): 0 if the rates are the same.
   */
  int changes() {
    return changes;
  }

  /**
   * Which moving flows the last step {@link #refilled} gave another rate, by index into its memo's
   * {@link StepMemo#moving} (the first {@link #changes} entries, in order). Do not modify.
   */
  int[] changedAt() {
    return changedAt;
  }

  /** How many water-filling steps were redone from their last rise (for tests). */
  long refills() {
    return refills;
  }

  /**
   * How many water-filling steps had the flows and free ports of their last one but not its
   * saturations, and were computed in full (for tests).
   */
  long abandonedRefills() {
    return abandonedRefills;
  }

  /** How many of the {@link #refills} came after flows of the coflow finished (for tests). */
  long refillsAfterFinishes() {
    return refillsAfterFinishes;
  }

  /**
   * Redoes a water-filling step from the rise of the coflow's last step of this kind ({@code m}, or
   * null), when its flows are the same and the same ports have capacity left (the residuals may
   * differ): false, residuals left as they were, if there is no such step, or if the rise does not
   * saturate the same resources in the same order.
   *
   * <p>The flows offered are then the same, in the same order, so the rise starts with the same
   * resources and counts. As long as the resources saturate in the order they did last time, each
   * saturation freezes the flows it froze last time, and the counts follow as they did: the rise is
   * run again on the resources alone, by the same operations in the same order, and each flow gets
   * the water level of the saturation that froze it last time. The rates and residuals are bit for
   * bit those of a full step, at the cost of the resources per round, a count per flow and the
   * flows' rates, without offering, sorting or freezing the flows. The memo then holds the new
   * rates ({@link StepMemo#moving}, {@link StepMemo#rates}), for the caller to hand out.
   */
  boolean refilled(StepMemo m, Coflow c, int kind, PortBudget budget) {
    if (m == null || m.kind != kind || !m.riseKnown) {
      return false;
    }
    boolean finished = m.changes != c.activeChanges();
    if (finished && !(m.riseByPorts && m.onlyFinishedSince(c))) {
      return false;
    }
    double[] res = budget.residual;
    if (!m.sameFreePorts(res)) {
      return false;
    }
    // Past this point a failed redo leaves the memo to the full step, which notes it anew.
    if (finished && !dropFinished(m, c)) {
      return false;
    }
    // The step's inputs, as a full step would note them.
    m.noteStart(c, res, ports);
    int t = m.riseSize;
    if (riseSaved.length < t) {
      riseSaved = new double[Math.max(t, 2 * riseSaved.length)];
    }
    int[] count = riseCount;
    for (int k = 0; k < t; k++) {
      int r = m.riseLive[k];
      live[k] = r;
      count[r] = m.riseCounts[k];
      riseSaved[k] = res[r];
    }
    if (eventAt.length < m.events) {
      eventAt = new double[Math.max(m.events, 2 * eventAt.length)];
    }
    redoing = m;
    redone = 0;
    redoneOthers = 0;
    WaterFilling.rise(live, t, count, res, due, resaturate);
    redoing = null;
    if (redone < 0) {
      abandonedRefills++;
      for (int k = 0; k < t; k++) {
        res[m.riseLive[k]] = riseSaved[k];
      }
      return false;
    }
    refills++;
    if (finished) {
      refillsAfterFinishes++;
    }
    for (int k = 0; k < t; k++) {
      count[m.riseLive[k]] = 0;
    }
    if (changedAt.length < m.moved) {
      changedAt = new int[Math.max(m.moved, 2 * changedAt.length)];
    }
    int changed = 0;
    for (int j = 0; j < m.moved; j++) {
      double r = eventAt[m.event[j]];
      if (r != m.rates[j]) {
        changedAt[changed++] = j;
        m.rates[j] = r;
      }
    }
    changes = changed;
    m.noteResiduals(res);
    return true;
  }

  /**
   * Takes the flows that finished since the memo's step out of its rise (its starting counts and
   * the flows each saturation froze) and out of its moving flows, whose positions follow the flows'
   * moves (the last active flow moves to a finished flow's position). The remaining flows are what
   * the water-filling would offer now: the same free ports, no flow added. True if they are still
   * many enough that their resources would be listed by a port scan, as the rise's were (so that
   * dropping a resource whose flows all finished keeps the order of the others).
   */
  private boolean dropFinished(StepMemo m, Coflow c) {
    int n = c.activeCount() + (int) (c.activeChanges() - m.changes);
    if (memberAt.length < n) {
      memberAt = new int[Math.max(n, 2 * memberAt.length)];
      Arrays.fill(memberAt, -1);
    }
    int[] at = memberAt;
    for (int j = 0; j < m.moved; j++) {
      at[m.moving[j]] = j;
    }
    for (int k = 0; k < m.riseSize; k++) {
      riseIndex[m.riseLive[k]] = k;
    }
    for (long change = m.changes + 1; change <= c.activeChanges(); change++) {
      int gone = c.changeGone(change);
      int last = c.changeLast(change);
      int j = at[gone];
      if (j >= 0) {
        at[gone] = -1;
        m.moving[j] = -1;
        m.riseCounts[riseIndex[c.changeSrc(change)]]--;
        m.riseCounts[riseIndex[ports + c.changeDst(change)]]--;
        m.otherEnds[m.slot[j]] = -1;
      }
      if (last != gone) {
        int moved = at[last];
        at[last] = -1;
        at[gone] = moved;
        if (moved >= 0) {
          m.moving[moved] = gone;
        }
      }
    }
    int kept = 0;
    for (int j = 0; j < m.moved; j++) {
      int k = m.moving[j];
      if (k >= 0) {
        at[k] = -1;
        m.moving[kept] = k;
        m.event[kept] = m.event[j];
        m.rates[kept] = m.rates[j];
        m.slot[kept++] = m.slot[j];
      }
    }
    m.moved = kept;
    return kept >= 2 * ports;
  }

  /**
   * What a rise being redone does when resource {@code r} saturates: if it is the next saturation
   * of the last rise, its flows freeze as they did then (the counts of their ends drop); if not,
   * every count drops to 0 so that the rise ends, and the redo is marked failed.
   */
  private void resaturate(int r, double at) {
    StepMemo m = redoing;
    int[] count = riseCount;
    int e = redone;
    if (e == m.events || m.eventResource[e] != r) {
      redone = -1;
      for (int k = 0; k < m.riseSize; k++) {
        count[m.riseLive[k]] = 0;
      }
      return;
    }
    count[r] = 0;
    for (int o = redoneOthers, end = m.eventEnd[e]; o < end; o++) {
      int other = m.otherEnds[o];
      if (other >= 0) { // else the flow has finished since
        count[other]--;
      }
    }
    redoneOthers = m.eventEnd[e];
    eventAt[e] = at;
    redone = e + 1;
  }
}
