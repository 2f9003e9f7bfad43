package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

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

  /** Per saturation of a rise being redone: the water level it happened at. */
  private double[] eventAt = new double[16];

  /** Per position of a coflow's active flows: the memo's moving flow there, or -1. */
  private int[] memberAt = new int[0];

  /** The memo whose rise is being redone, and its saturations redone so far. */
  private StepMemo redoing;

  private int redone;
  private int redoneOthers;

  /**
   * The saturation from which the rise being redone went another way than the memo's (the one that
   * saturated another resource, or one more), -1 while it follows the memo.
   */
  private int reorderedFrom;

  // The rise redone in another order: per moving flow (by index into the memo's) the saturation
  // that froze it (-1 while rising) and, for those still rising when it went its own way, its two
  // resources; per resource of the rise, those flows: byResource[resourceStart[r] ..
  // resourceEnd[r]).
  private int[] endA = new int[16];
  private int[] endB = new int[16];
  private int[] frozenBy = new int[16];
  private int[] byResource = new int[32];
  private final int[] resourceStart;
  private final int[] resourceEnd;

  /** Per saturation of a rise redone in another order: how many flows it froze, then a cursor. */
  private int[] eventFlows = new int[16];

  private final WaterFilling.Saturation resaturate = this::resaturate;

  /**
   * The moving flows (by index into the memo's) whose rates the last step {@link #refilled}
   * changed: {@code changedAt[0 .. changes)}, in the memo's order.
   */
  private int[] changedAt = new int[16];

  private int changes;

  private long refills;
  private long reorderedRefills;
  private long refillsOfReordered;
  private long refillsAfterFinishes;

  Refill(int ports) {
    this.ports = ports;
    this.live = new int[2 * ports];
    this.due = new int[2 * ports];
    this.riseCount = new int[2 * ports];
    this.riseIndex = new int[2 * ports];
    this.resourceStart = new int[2 * ports];
    this.resourceEnd = new int[2 * ports];
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
   * How many of the {@link #refills} saturated resources in another order than the step they were
   * redone from (for tests).
   */
  long reorderedRefills() {
    return reorderedRefills;
  }

  /**
   * How many of the {@link #refills} were redone from saturations a redo in another order noted
   * (for tests).
   */
  long refillsOfReordered() {
    return refillsOfReordered;
  }

  /** How many of the {@link #refills} came after flows of the coflow finished (for tests). */
  long refillsAfterFinishes() {
    return refillsAfterFinishes;
  }

  /**
   * Redoes a water-filling step from the rise of the coflow's last step of this kind ({@code m}, or
   * null), when its flows are the same and the same ports have capacity left (the residuals may
   * differ): false, residuals left as they were, if there is no such step, or too few of its flows
   * are left after some finished.
   *
   * <p>The flows offered are then the same, in the same order, so the rise starts with the same
   * resources and counts. As long as the resources saturate in the order they did last time, each
   * saturation freezes the flows it froze last time, and the counts follow as they did: the rise is
   * run again on the resources alone, by the same operations in the same order, and each flow gets
   * the water level of the saturation that froze it last time. The rates and residuals are bit for
   * bit those of a full step, at the cost of the resources per round, a count per flow and the
   * flows' rates, without offering, sorting or freezing the flows. If a saturation goes another way
   * (another resource saturates, or one more), the flows still rising are listed by resource from
   * the memo (both ends of each flow are known from the saturation that froze it and its other end)
   * and the rest of the rise freezes them from those lists, as a full step's counting sort would: a
   * saturation freezes every flow of its resource still rising, whatever their order, and the
   * counts are integers, so the rise, the levels and the residuals are still the full step's,
   * without offering the flows again. The memo then notes the new saturations and holds the new
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
    // A redo that fails here leaves the memo to the full step, which notes it anew.
    if (finished && !dropFinished(m, c)) {
      return false;
    }
    // The step's inputs, as a full step would note them.
    m.noteStart(c, res, ports);
    int t = m.riseSize;
    int[] count = riseCount;
    for (int k = 0; k < t; k++) {
      int r = m.riseLive[k];
      live[k] = r;
      count[r] = m.riseCounts[k];
    }
    // A resource saturates at most once, so a rise has at most as many saturations as resources.
    if (eventAt.length < Math.max(t, m.events)) {
      eventAt = new double[Math.max(Math.max(t, m.events), 2 * eventAt.length)];
    }
    redoing = m;
    redone = 0;
    redoneOthers = 0;
    reorderedFrom = -1;
    WaterFilling.rise(live, t, count, res, due, resaturate);
    redoing = null;
    boolean ofReordered = m.reorderedByRedo;
    if (reorderedFrom >= 0) {
      reorderedRefills++;
      noteReordered(m);
    }
    refills++;
    if (ofReordered) {
      refillsOfReordered++;
    }
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
   * the flows still rising are listed by resource, and from then on each saturation freezes those
   * of its resource ({@link #resaturateAny}).
   */
  private void resaturate(int r, double at) {
    StepMemo m = redoing;
    int[] count = riseCount;
    int e = redone;
    if (reorderedFrom < 0 && (e == m.events || m.eventResource[e] != r)) {
      listByResource(m, e);
    }
    if (reorderedFrom >= 0) {
      resaturateAny(m, r, at);
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

  /**
   * Lists the memo's flows still rising by resource, when its rise goes another way from saturation
   * {@code e} on: each one's ends (the resource of the saturation that froze it last time and its
   * other end); the flows the saturations before {@code e} froze again keep that saturation.
   */
  private void listByResource(StepMemo m, int e) {
    reorderedFrom = e;
    int n = m.moved;
    if (endA.length < n) {
      int len = Math.max(n, 2 * endA.length);
      endA = new int[len];
      endB = new int[len];
      frozenBy = new int[len];
      byResource = new int[2 * len];
    }
    for (int k = 0; k < m.riseSize; k++) {
      resourceEnd[m.riseLive[k]] = 0;
    }
    for (int j = 0; j < n; j++) {
      int was = m.event[j];
      if (was < e) {
        frozenBy[j] = was;
        continue;
      }
      int a = m.eventResource[was];
      int b = m.otherEnds[m.slot[j]];
      endA[j] = a;
      endB[j] = b;
      frozenBy[j] = -1;
      resourceEnd[a]++;
      resourceEnd[b]++;
    }
    int at = 0;
    for (int k = 0; k < m.riseSize; k++) {
      int r = m.riseLive[k];
      int flows = resourceEnd[r];
      resourceStart[r] = at;
      resourceEnd[r] = at;
      at += flows;
    }
    for (int j = 0; j < n; j++) {
      if (frozenBy[j] < 0) {
        byResource[resourceEnd[endA[j]]++] = j;
        byResource[resourceEnd[endB[j]]++] = j;
      }
    }
  }

  /**
   * Saturation {@link #redone} of a rise redone in another order: resource {@code r} saturates at
   * level {@code at}, and its flows still rising freeze (the counts of their other ends drop).
   */
  private void resaturateAny(StepMemo m, int r, double at) {
    int e = redone++;
    m.eventResource[e] = r; // read no more for the saturations from reorderedFrom on
    eventAt[e] = at;
    int[] count = riseCount;
    for (int p = resourceStart[r], end = resourceEnd[r]; p < end; p++) {
      int j = byResource[p];
      if (frozenBy[j] < 0) {
        frozenBy[j] = e;
        count[endA[j] == r ? endB[j] : endA[j]]--;
      }
    }
    count[r] = 0;
  }

  /**
   * Notes in the memo the rise just redone in another order: its saturations (their resources are
   * in place) and, past the notes of those before {@link #reorderedFrom} (which stand), the flows
   * each of the others froze with their other ends. The flows listed by resource were all rising
   * then, so they fit in the place the last rise's later saturations noted them in.
   */
  private void noteReordered(StepMemo m) {
    int events = redone;
    int from = reorderedFrom;
    int n = m.moved;
    if (eventFlows.length < events) {
      eventFlows = new int[Math.max(events, 2 * eventFlows.length)];
    }
    Arrays.fill(eventFlows, from, events, 0);
    for (int j = 0; j < n; j++) {
      int e = frozenBy[j];
      if (e >= from) {
        eventFlows[e]++;
      }
    }
    int at = from == 0 ? 0 : m.eventEnd[from - 1];
    for (int e = from; e < events; e++) {
      int flows = eventFlows[e];
      eventFlows[e] = at;
      at += flows;
      m.eventEnd[e] = at;
    }
    for (int j = 0; j < n; j++) {
      int e = frozenBy[j];
      if (e >= from) {
        int o = eventFlows[e]++;
        int r = m.eventResource[e];
        m.otherEnds[o] = endA[j] == r ? endB[j] : endA[j];
        m.event[j] = e;
        m.slot[j] = o;
      }
    }
    m.events = events;
    m.others = at;
    m.reorderedByRedo = true;
  }
}
