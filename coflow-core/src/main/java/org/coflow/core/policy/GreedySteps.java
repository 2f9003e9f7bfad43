package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

/**
 * A coflow's greedy step (strict priority per flow, in the coflow's order: each flow takes
 * everything both its ports still have), computed in full or from the coflow's last one ({@link
 * StepMemo} of kind {@link StepMemo#GREEDY}), looking only at the flows whose outcome can differ.
 *
 * <p>Not thread-safe: scratch arrays reused from step to step.
 */
final class GreedySteps {
  private final int ports;
  private final RateHand hand;
  private final FlowMarks marks;
  private final FollowedEnds followed;
  private long reratings;

  private double[] saved = new double[0];
  private int[] oldMoving = new int[0];
  private byte[] oldSaturated = new byte[0];
  private int[] newMoving = new int[0];
  private double[] newRates = new double[0];
  private byte[] newSaturated = new byte[0];

  // Positions of flows added or moved since the last step (candidates), and the ends to follow.
  private int extras;
  private int[] extra = new int[8];
  private int pending;
  private int[] pendingResource = new int[8];
  private int[] pendingAfter = new int[8];

  GreedySteps(int ports, RateHand hand, FlowMarks marks) {
    this.ports = ports;
    this.hand = hand;
    this.marks = marks;
    this.followed = new FollowedEnds(ports);
  }

  /** How many greedy steps were redone from the coflow's last one rather than computed. */
  long reratings() {
    return reratings;
  }

  /**
   * Computes the coflow's greedy step in full, noting its outcome in {@code m} (its inputs already
   * noted).
   */
  void full(StepMemo m, Coflow c, PortBudget budget, Schedule schedule) {
    // Every flow given a rate saturates its sender or its receiver. Once all the coflow's
    // senders, or all its receivers, are saturated, no later flow can get anything: stop there
    // instead of checking each (a wide coflow's first flows take its ports).
    int upFree = 0;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0 && budget.up(p) > PortBudget.EPS) {
        upFree++;
      }
    }
    int downFree = 0;
    int intoFree = 0;
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0 && budget.down(p) > PortBudget.EPS) {
        downFree++;
        intoFree += c.activeFlowsTo(p);
      }
    }
    int n = c.activeCount();
    m.ensureGreedy(n);
    int moved = 0;
    // Visit only marked flows, in the same order: capacity only shrinks during the step, so an
    // unmarked flow could get nothing. When most flows wait at a saturated receiver, the flows
    // with capacity left at both ends are marked through the receivers' lists. Otherwise all
    // are marked and the flows of saturated ports unmarked. A port's flows not reached yet are
    // unmarked when it saturates during the step: each then costs a bit cleared, not a visit.
    int words = 0;
    boolean all = 2 * intoFree >= n;
    if (upFree > 0 && downFree > 0) {
      words = all ? marks.markAll(c, budget.residual) : marks.markFree(c, budget.residual, null, 0);
    }
    for (int k = marks.next(0, words);
        k < n && upFree > 0 && downFree > 0;
        k = marks.next(k + 1, words)) {
      int src = c.activeSrc(k);
      int dst = c.activeDst(k);
      double r = budget.available(src, dst);
      if (r > PortBudget.EPS) {
        budget.take(src, dst, r);
        if (budget.up(src) <= PortBudget.EPS) {
          upFree--;
          // Unless flows were marked through the receivers: then a sender's marked flows are the
          // few into free receivers, cheaper visited than all its flows cleared.
          if (all) {
            marks.unmark(c.activePositionsFrom(src), c.activeFlowsFrom(src), k);
          }
        }
        if (budget.down(dst) <= PortBudget.EPS) {
          downFree--;
          marks.unmark(c.activePositionsTo(dst), c.activeFlowsTo(dst), k);
        }
        // Its flows had no rate before this step: the rate it has now is r.
        m.saturated[moved] = StepMemo.saturatedEnds(budget, src, dst);
        m.moving[moved] = k;
        m.rates[moved++] = r;
      }
    }
    m.moved = moved;
    hand.rateByPosition(c, m.moving, m.rates, moved, schedule);
    m.noteResiduals(budget.residual);
  }

  /**
   * Computes a greedy step from the coflow's last one ({@code m}, or null); false (residuals left
   * as they were) if there is no such step to start from (or the coflow's flows changed more than
   * its log of changes remembers), or if it would look at more flows than a full step is worth.
   *
   * <p>A greedy step visits flows in order and gives a flow what both its ends have left when
   * neither is saturated, so a flow moves now but did not last time only if one of its ends was
   * saturated at that point last time and is not now. That end was saturated either when the step
   * started (and is not now), or by a flow that moved last time and does not saturate it now (or
   * has finished since). From that moment on the end's later flows, in order (its position list),
   * join the candidates; the flows that moved last time are candidates anyway, and so are the flows
   * added since or moved into a finished flow's position. Candidates are taken in order and each
   * gets what a full step would give it, by the same operations in the same order, so the rates are
   * those of a full step to the last bit. Costs the coflow's ports, its changes since the last step
   * and the candidates visited (with a heap of the ends' lists).
   */
  boolean rerated(StepMemo m, Coflow c, PortBudget budget, Schedule schedule) {
    long changes = c.activeChanges();
    if (m == null
        || m.kind != StepMemo.GREEDY
        || (m.changes != changes && !c.changeKnown(m.changes + 1))) {
      return false;
    }
    double[] res = budget.residual;
    if (saved.length < res.length) {
      saved = new double[res.length];
    }
    System.arraycopy(res, 0, saved, 0, res.length);
    int n = c.activeCount();
    if (newRates.length < Math.max(n, m.moved)) {
      int len = Math.max(n, m.moved);
      newRates = new double[len];
      newMoving = new int[len];
      newSaturated = new byte[len];
      oldMoving = new int[len];
      oldSaturated = new byte[len];
    }
    int oldMoved = m.moved;
    System.arraycopy(m.moving, 0, oldMoving, 0, oldMoved);
    System.arraycopy(m.saturated, 0, oldSaturated, 0, oldMoved);
    followed.clear();
    extras = 0;
    pending = 0;
    oldMoved = noteChanges(m, c, oldMoved);
    Arrays.sort(extra, 0, extras);
    for (int j = 0; j < pending; j++) {
      followed.follow(c, pendingResource[j], pendingAfter[j]);
    }
    for (int j = 0, size = m.size; j < size; j++) {
      double v = res[m.resources[j]];
      if (v > PortBudget.EPS && m.before[j] <= PortBudget.EPS) {
        followed.follow(c, m.resources[j], -1);
      }
    }
    int limit = Math.max(64, n / 4);
    int visits = 0;
    int moved = 0;
    int oi = 0;
    int ei = 0;
    while (true) {
      int old = oi < oldMoved ? oldMoving[oi] : Integer.MAX_VALUE;
      int added = ei < extras ? extra[ei] : Integer.MAX_VALUE;
      int k = Math.min(Math.min(old, added), followed.next(res));
      if (k == Integer.MAX_VALUE) {
        break;
      }
      boolean wasMoving = k == old;
      if (wasMoving) {
        oi++;
      }
      if (k == added) {
        ei++;
      }
      followed.pass(k);
      if (++visits > limit) {
        System.arraycopy(saved, 0, res, 0, res.length);
        return false;
      }
      int src = c.activeSrc(k);
      int dst = c.activeDst(k);
      double r = budget.available(src, dst);
      byte ends = 0;
      if (r > PortBudget.EPS) {
        budget.take(src, dst, r);
        ends = StepMemo.saturatedEnds(budget, src, dst);
        newMoving[moved] = k;
        newRates[moved] = r;
        newSaturated[moved++] = ends;
      }
      if (wasMoving) {
        // The ends it saturated last time but not now: their later flows become candidates.
        int lost = oldSaturated[oi - 1] & ~ends;
        if ((lost & 1) != 0) {
          followed.follow(c, src, k);
        }
        if ((lost & 2) != 0) {
          followed.follow(c, ports + dst, k);
        }
      }
    }
    hand.rateByPosition(c, newMoving, newRates, moved, schedule);
    m.ensureGreedy(n);
    System.arraycopy(newMoving, 0, m.moving, 0, moved);
    System.arraycopy(newRates, 0, m.rates, 0, moved);
    System.arraycopy(newSaturated, 0, m.saturated, 0, moved);
    m.moved = moved;
    m.noteStart(c, saved, ports);
    m.noteResiduals(res);
    reratings++;
    return true;
  }

  /**
   * Flows added or finished since the memo's step: a flow added (at the end) is a candidate; a flow
   * finished no longer saturates the ends it did, which are followed from its position; the last
   * flow, moved into that position, is a candidate there, and no longer one of the flows that moved
   * last time (at the end, it changed nothing after it). Returns how many of those are left.
   */
  private int noteChanges(StepMemo m, Coflow c, int oldMoved) {
    for (long ch = m.changes + 1; ch <= c.activeChanges(); ch++) {
      int gone = c.changeGone(ch);
      int last = c.changeLast(ch);
      if (gone < 0) {
        extra(last);
        continue;
      }
      int i = Arrays.binarySearch(oldMoving, 0, oldMoved, gone);
      if (i >= 0) {
        if ((oldSaturated[i] & 1) != 0) {
          pend(c.changeSrc(ch), gone);
        }
        if ((oldSaturated[i] & 2) != 0) {
          pend(ports + c.changeDst(ch), gone);
        }
        oldMoved = removeOld(i, oldMoved);
      } else {
        unextra(gone);
      }
      if (last != gone) {
        i = Arrays.binarySearch(oldMoving, 0, oldMoved, last);
        if (i >= 0) {
          oldMoved = removeOld(i, oldMoved);
        } else {
          unextra(last);
        }
        extra(gone);
      }
    }
    return oldMoved;
  }

  /** Takes entry {@code i} out of the flows that moved last time; returns how many are left. */
  private int removeOld(int i, int count) {
    System.arraycopy(oldMoving, i + 1, oldMoving, i, count - i - 1);
    System.arraycopy(oldSaturated, i + 1, oldSaturated, i, count - i - 1);
    return count - 1;
  }

  private void extra(int k) {
    if (extras == extra.length) {
      extra = Arrays.copyOf(extra, 2 * extras);
    }
    extra[extras++] = k;
  }

  private void unextra(int k) {
    for (int j = 0; j < extras; j++) {
      if (extra[j] == k) {
        extra[j] = extra[--extras];
        return;
      }
    }
  }

  private void pend(int resource, int after) {
    if (pending == pendingResource.length) {
      pendingResource = Arrays.copyOf(pendingResource, 2 * pending);
      pendingAfter = Arrays.copyOf(pendingAfter, 2 * pending);
    }
    pendingResource[pending] = resource;
    pendingAfter[pending++] = after;
  }
}
