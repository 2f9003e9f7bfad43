package org.coflow.master.policy;

import java.util.List;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.Flow;

/**
 * The rate allocation steps policies are built from. Each takes capacity from a {@link PortBudget}
 * and adds rates to a {@link Schedule}; none allocates more than the budget holds.
 *
 * <p>Not thread-safe: an instance keeps scratch arrays sized to the fabric, so every policy owns
 * one.
 */
public final class Allocator {
  private final int ports;
  private final int[] count;
  private final int[] start;
  private final int[] members;
  private final int[] entries;
  private final int[] live;

  /** {@link #rise}'s scratch: the resources saturating in one step. */
  private final int[] due;

  private final int[] touched;
  private final boolean[] isTouched;
  private int[] list = new int[1024];
  private boolean[] frozen = new boolean[1024];

  /** Per group member: uplink resource, downlink resource (ports + dst), flow index. */
  private int[] liveUp = new int[1024];

  private int[] liveDown = new int[1024];
  private int[] liveIndex = new int[1024];

  /** Per group member offered through {@link #offerCoflow}: its position in its coflow. */
  private int[] livePosition = new int[1024];

  private int groupSize;

  public Allocator(int ports) {
    this.ports = ports;
    this.count = new int[2 * ports];
    this.start = new int[2 * ports + 1];
    this.members = new int[2 * ports];
    this.entries = new int[2 * ports];
    this.live = new int[2 * ports];
    this.due = new int[2 * ports];
    this.touched = new int[2 * ports];
    this.isTouched = new boolean[2 * ports];
    this.riseCount = new int[2 * ports];
    this.riseIndex = new int[2 * ports];
  }

  public int ports() {
    return ports;
  }

  /**
   * Per-flow max-min fair sharing of the budget among {@code flows} (true water-filling over sender
   * and receiver ports): all flows rise together; when a port saturates, its flows freeze at the
   * current level and the others keep rising. The result is work-conserving for these flows.
   */
  public void maxMinFair(List<Flow> flows, PortBudget budget, Schedule schedule) {
    // Flows with a saturated port get nothing; skipping them first keeps the cost of a coflow
    // that waits behind others to one cheap scan.
    double[] res = budget.residual;
    groupSize = 0;
    for (int i = 0, m = flows.size(); i < m; i++) {
      Flow f = flows.get(i);
      if (res[f.src()] > PortBudget.EPS && res[ports + f.dst()] > PortBudget.EPS) {
        addToGroup(f);
      }
    }
    fillGroup(budget, schedule);
  }

  /**
   * {@link #maxMinFair(List, PortBudget, Schedule)} of a coflow's active flows, skipped at the cost
   * of its ports (not its flows) when none of them can get anything.
   */
  public void maxMinFair(Coflow c, PortBudget budget, Schedule schedule) {
    memoisedFill(c, MAX_MIN, budget, schedule);
  }

  /**
   * The backfill of a priority class that is one whole coflow: its active flows with capacity left
   * at both ends share the leftovers max-min fairly, on top of the rates they already have.
   * Replayed, like a max-min step, when the coflow's flows and the residuals at its ports are those
   * of its last backfill.
   */
  void backfillCoflow(Coflow c, PortBudget budget, Schedule schedule) {
    memoisedFill(c, BACKFILL, budget, schedule);
  }

  /**
   * Water-fills the budget among the coflow's active flows with capacity left at both ends, adding
   * to the rates they have, or replays the coflow's last step of this kind if its inputs did not
   * change; nothing at the cost of its ports when none of its flows can get anything.
   */
  private void memoisedFill(Coflow c, int kind, PortBudget budget, Schedule schedule) {
    if (!mayTake(c, budget)) {
      return;
    }
    Memo last = memosOf(kind).get(c);
    if (!replayed(last, c, kind, budget, schedule) && !refilled(last, c, kind, budget, schedule)) {
      Memo memo = start(last, c, kind, budget);
      groupSize = 0;
      offerCoflow(c, null, 0, budget, null);
      memo.riseKnown = false;
      rising = memo;
      fillGroup(budget, schedule);
      rising = null;
      record(memo, budget);
    }
  }

  /** The memo whose water-filling is being computed, to note its rise in; else null. */
  private Memo rising;

  private long refills;

  private long abandonedRefills;
  private long refillsAfterFinishes;

  /** How many of the {@link #refills} came after flows of the coflow finished (for tests). */
  long refillsAfterFinishes() {
    return refillsAfterFinishes;
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

  /** Per saturation of a rise being redone: the water level it happened at. */
  private double[] eventAt = new double[16];

  /**
   * True if every change to the coflow's active flows since the memo's step was a flow finishing,
   * and the coflow still remembers them all.
   */
  private static boolean onlyFinishedSince(Memo m, Coflow c) {
    for (long change = m.changes + 1; change <= c.activeChanges(); change++) {
      if (!c.changeKnown(change) || c.changeGone(change) < 0) {
        return false;
      }
    }
    return true;
  }

  /** Per position of a coflow's active flows: the memo's moving flow there, or -1. */
  private int[] memberAt = new int[0];

  /** Per resource: its index in the memo's rise, while flows that finished are dropped. */
  private final int[] riseIndex;

  /**
   * Takes the flows that finished since the memo's step out of its rise (its starting counts and
   * the flows each saturation froze) and out of its moving flows, whose positions follow the flows'
   * moves (the last active flow moves to a finished flow's position). The remaining flows are what
   * the water-filling would offer now: the same free ports, no flow added. True if they are still
   * many enough that their resources would be listed by a port scan, as the rise's were (so that
   * dropping a resource whose flows all finished keeps the order of the others).
   */
  private boolean dropFinished(Memo m, Coflow c) {
    int n = c.activeCount() + (int) (c.activeChanges() - m.changes);
    if (memberAt.length < n) {
      memberAt = new int[Math.max(n, 2 * memberAt.length)];
      java.util.Arrays.fill(memberAt, -1);
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
        m.slot[kept++] = m.slot[j];
      }
    }
    m.moved = kept;
    return kept >= 2 * ports;
  }

  /** The memo whose rise is being redone; its saturations redone so far (-1: another one came). */
  private Memo redoing;

  private int redone;
  private int redoneOthers;

  private final Saturation resaturate = this::resaturate;

  /**
   * What a rise being redone does when resource {@code r} saturates: if it is the next saturation
   * of the last rise, its flows freeze as they did then (the counts of their ends drop); if not,
   * every count drops to 0 so that the rise ends, and the redo is marked failed.
   */
  private void resaturate(int r, double at) {
    Memo m = redoing;
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

  private final int[] riseCount;
  private double[] riseSaved = new double[0];

  /**
   * Redoes a water-filling step from the rise of the coflow's last step of this kind, when its
   * flows are the same and the same ports have capacity left (the residuals may differ): false,
   * residuals left as they were, if there is no such step, or if the rise does not saturate the
   * same resources in the same order.
   *
   * <p>The flows offered are then the same, in the same order, so the rise starts with the same
   * resources and counts. As long as the resources saturate in the order they did last time, each
   * saturation freezes the flows it froze last time, and the counts follow as they did: the rise is
   * run again on the resources alone, by the same operations in the same order, and each flow gets
   * the water level of the saturation that froze it last time. The rates and residuals are bit for
   * bit those of a full step, at the cost of the resources per round, a count per flow and the
   * flows' rates, without offering, sorting or freezing the flows.
   */
  private boolean refilled(Memo m, Coflow c, int kind, PortBudget budget, Schedule schedule) {
    if (m == null || m.kind != kind || !m.riseKnown) {
      return false;
    }
    boolean finished = m.changes != c.activeChanges();
    if (finished && !(m.riseByPorts && onlyFinishedSince(m, c))) {
      return false;
    }
    double[] res = budget.residual;
    for (int j = 0; j < m.size; j++) {
      if ((res[m.resources[j]] > PortBudget.EPS) != (m.before[j] > PortBudget.EPS)) {
        return false;
      }
    }
    // Past this point a failed redo leaves the memo to the full step, which notes it anew.
    if (finished && !dropFinished(m, c)) {
      return false;
    }
    // The step's inputs, as a full step would note them.
    noteStart(m, c, res);
    int t = m.riseSize;
    if (riseSaved.length < t) {
      riseSaved = new double[Math.max(t, 2 * riseSaved.length)];
    }
    int[] count = riseCount;
    int[] live = this.live;
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
    rise(live, t, count, res, due, resaturate);
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
    for (int j = 0; j < m.moved; j++) {
      m.rates[j] = eventAt[m.event[j]];
    }
    rateByPosition(c, m.moving, m.rates, m.moved, schedule);
    noteResiduals(m, res);
    return true;
  }

  // Memoised per-coflow steps. A step of one coflow (max-min fair sharing, greedy allocation or
  // backfill of its active flows on the residual capacity) depends only on the coflow's active
  // flows, in their order, and on the residual capacity at the ports they use. When neither
  // changed since the coflow's last step of the same kind, the step's outcome is replayed instead
  // of recomputed: the same rates added (bit for bit) and the same residuals left, at the cost of
  // the coflow's ports and its moving flows. Between two events of a fluid replay most coflows are
  // in that case. A coflow's backfill is remembered apart from its policy step, which comes first
  // in the same decision.
  private static final int MAX_MIN = 1;
  private static final int GREEDY = 2;
  private static final int BACKFILL = 3;
  private static final int GROUPS = 4;
  private final java.util.IdentityHashMap<Coflow, Memo> memos = new java.util.IdentityHashMap<>();
  private final java.util.IdentityHashMap<Coflow, Memo> backfills =
      new java.util.IdentityHashMap<>();
  private final java.util.IdentityHashMap<Coflow, Memo> groupSteps =
      new java.util.IdentityHashMap<>();

  private long replays;

  private java.util.IdentityHashMap<Coflow, Memo> memosOf(int kind) {
    return kind == BACKFILL ? backfills : kind == GROUPS ? groupSteps : memos;
  }

  /** How many coflows have a remembered step (for tests). */
  int remembered() {
    return memos.size() + backfills.size() + groupSteps.size();
  }

  /** How many coflow steps were replayed rather than computed (for tests and profiling). */
  long replays() {
    return replays;
  }

  private static final class Memo {
    int kind;
    long changes = -1;
    int[] resources = new int[0];
    int size;
    double[] before = new double[0];
    double[] after = new double[0];
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
     * {@link #refilled} can redo it.
     */
    boolean riseKnown;

    /** The resources the rise started with, in their order, and their counts of flows. */
    int riseSize;

    int[] riseLive = new int[0];
    int[] riseCounts = new int[0];

    /**
     * The saturations, in order: saturation e saturated resource {@code eventResource[e]} and froze
     * the flows whose other ends are {@code otherEnds[eventEnd[e - 1] .. eventEnd[e])} (-1 for a
     * flow that has finished since).
     */
    int events;

    int[] eventResource = new int[0];
    int[] eventEnd = new int[0];
    int[] otherEnds = new int[0];
    int others;

    /** Per moving flow: the saturation that froze it, and its entry in {@link #otherEnds}. */
    int[] event = new int[0];

    int[] slot = new int[0];

    /** Whether the rise's resources were listed by a port scan (not in the order flows came). */
    boolean riseByPorts;

    /** For a step of groups: the step of each group, on the residuals the groups before left. */
    Memo[] groups = new Memo[0];
  }

  /**
   * True if the coflow's last step of this kind ({@code m}, its memo of that kind or null) had the
   * same inputs: its outcome is replayed.
   */
  private boolean replayed(Memo m, Coflow c, int kind, PortBudget budget, Schedule schedule) {
    if (m == null || m.kind != kind || m.changes != c.activeChanges()) {
      return false;
    }
    double[] res = budget.residual;
    for (int j = 0; j < m.size; j++) {
      if (res[m.resources[j]] != m.before[j]) {
        return false;
      }
    }
    for (int j = 0; j < m.size; j++) {
      res[m.resources[j]] = m.after[j];
    }
    replays++;
    rateByPosition(c, m.moving, m.rates, m.moved, schedule);
    return true;
  }

  /**
   * Forgets the steps of coflows that have finished (a policy calls it once per decision), so that
   * a finished coflow and its flows are not kept reachable.
   */
  public void forgetFinished() {
    if (!memos.isEmpty()) {
      memos.keySet().removeIf(c -> c.index() < 0);
    }
    if (!backfills.isEmpty()) {
      backfills.keySet().removeIf(c -> c.index() < 0);
    }
    if (!groupSteps.isEmpty()) {
      groupSteps.keySet().removeIf(c -> c.index() < 0);
    }
  }

  private long reratings;
  private double[] newRates = new double[0];

  /**
   * How many greedy steps were redone from the coflow's last one rather than computed (for tests).
   */
  long reratings() {
    return reratings;
  }

  /**
   * Computes a greedy step from the coflow's last one, looking only at the flows whose outcome can
   * differ; false (residuals left as they were) if there is no such step to start from (or the
   * coflow's flows changed more than its log of changes remembers), or if it would look at more
   * flows than a full step is worth.
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
  private boolean rerated(Memo m, Coflow c, PortBudget budget, Schedule schedule) {
    long changes = c.activeChanges();
    if (m == null || m.kind != GREEDY || (m.changes != changes && !c.changeKnown(m.changes + 1))) {
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
    streams = 0;
    streamIds = 0;
    extras = 0;
    pending = 0;
    // Flows added or finished since: a flow added (at the end) is a candidate; a flow finished no
    // longer saturates the ends it did, which are followed from its position; the last flow,
    // moved into that position, is a candidate there, and no longer one of the flows that moved
    // last time (at the end, it changed nothing after it).
    for (long ch = m.changes + 1; ch <= changes; ch++) {
      int gone = c.changeGone(ch);
      int last = c.changeLast(ch);
      if (gone < 0) {
        extra(last);
        continue;
      }
      int i = java.util.Arrays.binarySearch(oldMoving, 0, oldMoved, gone);
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
        i = java.util.Arrays.binarySearch(oldMoving, 0, oldMoved, last);
        if (i >= 0) {
          oldMoved = removeOld(i, oldMoved);
        } else {
          unextra(last);
        }
        extra(gone);
      }
    }
    java.util.Arrays.sort(extra, 0, extras);
    for (int j = 0; j < pending; j++) {
      follow(c, pendingResource[j], pendingAfter[j]);
    }
    for (int j = 0, size = m.size; j < size; j++) {
      double v = res[m.resources[j]];
      if (v > PortBudget.EPS && m.before[j] <= PortBudget.EPS) {
        follow(c, m.resources[j], -1);
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
      int k = Math.min(Math.min(old, added), nextFollowed(res));
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
      while (streams > 0 && streamAt(heap[0]) == k) {
        advanceTop();
      }
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
        ends = saturatedEnds(budget, src, dst);
        newMoving[moved] = k;
        newRates[moved] = r;
        newSaturated[moved++] = ends;
      }
      if (wasMoving) {
        // The ends it saturated last time but not now: their later flows become candidates.
        int lost = oldSaturated[oi - 1] & ~ends;
        if ((lost & 1) != 0) {
          follow(c, src, k);
        }
        if ((lost & 2) != 0) {
          follow(c, ports + dst, k);
        }
      }
    }
    rateByPosition(c, newMoving, newRates, moved, schedule);
    if (m.moving.length < n) {
      m.moving = new int[n];
      m.rates = new double[n];
      m.saturated = new byte[n];
    }
    System.arraycopy(newMoving, 0, m.moving, 0, moved);
    System.arraycopy(newRates, 0, m.rates, 0, moved);
    System.arraycopy(newSaturated, 0, m.saturated, 0, moved);
    m.moved = moved;
    noteStart(m, c, saved);
    noteResiduals(m, res);
    reratings++;
    return true;
  }

  /** Flow indices and rates handed to {@link Schedule#addRates} at once. */
  private int[] handFlow = new int[64];

  private double[] handRate = new double[64];

  /**
   * Gives the flows at {@code positions[0 .. n)} of the coflow's active flows their {@code rates},
   * in that order, through {@link Schedule#addRates}.
   */
  private void rateByPosition(Coflow c, int[] positions, double[] rates, int n, Schedule schedule) {
    if (n <= 8) {
      // Small steps (Sincronia's greedy ones) keep the calls flow by flow: handed over at once,
      // they made Sincronia's whole trace slower (10.3 s against 9.0 s, 5 runs each).
      for (int j = 0; j < n; j++) {
        schedule.addRate(c.activeIndex(positions[j]), rates[j]);
      }
      return;
    }
    ensureHand(n);
    for (int j = 0; j < n; j++) {
      handFlow[j] = c.activeIndex(positions[j]);
    }
    schedule.addRates(handFlow, rates, n);
  }

  /** Makes {@link #handFlow} and {@link #handRate} hold at least {@code n} entries. */
  private void ensureHand(int n) {
    if (handFlow.length < n) {
      handFlow = new int[Math.max(n, 2 * handFlow.length)];
      handRate = new double[handFlow.length];
    }
  }

  private double[] saved = new double[0];
  private int[] oldMoving = new int[0];
  private byte[] oldSaturated = new byte[0];

  /** Takes entry {@code i} out of the flows that moved last time; returns how many are left. */
  private int removeOld(int i, int count) {
    System.arraycopy(oldMoving, i + 1, oldMoving, i, count - i - 1);
    System.arraycopy(oldSaturated, i + 1, oldSaturated, i, count - i - 1);
    return count - 1;
  }

  // Positions of flows added or moved since the last step (candidates), and the ends to follow.
  private int extras;
  private int[] extra = new int[8];
  private int pending;
  private int[] pendingResource = new int[8];
  private int[] pendingAfter = new int[8];

  private void extra(int k) {
    if (extras == extra.length) {
      extra = java.util.Arrays.copyOf(extra, 2 * extras);
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
      pendingResource = java.util.Arrays.copyOf(pendingResource, 2 * pending);
      pendingAfter = java.util.Arrays.copyOf(pendingAfter, 2 * pending);
    }
    pendingResource[pending] = resource;
    pendingAfter[pending++] = after;
  }

  // The ends followed by rerated() (from the start, from a finished flow's position, or from where
  // they saturated last time; an end may be followed twice, and a position in two streams is
  // visited once): per stream, its resource, position list, size and next entry; a binary heap of
  // the streams not yet used up by their next position.
  private int streams;
  private int streamIds;
  private int[] heap = new int[8];
  private int[] streamResource = new int[8];
  private int[][] streamList = new int[8][];
  private int[] streamSize = new int[8];
  private int[] streamNext = new int[8];
  private int[] newMoving = new int[0];
  private byte[] newSaturated = new byte[0];

  /**
   * Makes the flows of a resource (uplink, or {@code ports} + downlink) after {@code after}
   * candidates.
   */
  private void follow(Coflow c, int resource, int after) {
    int[] list;
    int count;
    if (resource < ports) {
      list = c.activePositionsFrom(resource);
      count = c.activeFlowsFrom(resource);
    } else {
      list = c.activePositionsTo(resource - ports);
      count = c.activeFlowsTo(resource - ports);
    }
    int from = java.util.Arrays.binarySearch(list, 0, count, after);
    from = from < 0 ? -from - 1 : from + 1;
    if (from >= count) {
      return;
    }
    int id = streamIds++;
    if (id == heap.length) {
      int len = 2 * id;
      heap = java.util.Arrays.copyOf(heap, len);
      streamResource = java.util.Arrays.copyOf(streamResource, len);
      streamList = java.util.Arrays.copyOf(streamList, len);
      streamSize = java.util.Arrays.copyOf(streamSize, len);
      streamNext = java.util.Arrays.copyOf(streamNext, len);
    }
    streamResource[id] = resource;
    streamList[id] = list;
    streamSize[id] = count;
    streamNext[id] = from;
    heap[streams++] = id;
    siftUp(streams - 1);
  }

  private int streamAt(int id) {
    return streamList[id][streamNext[id]];
  }

  /** The next position of a followed end that still has capacity, dropping saturated ends. */
  private int nextFollowed(double[] res) {
    while (streams > 0) {
      int top = heap[0];
      if (res[streamResource[top]] > PortBudget.EPS) {
        return streamAt(top);
      }
      removeTop();
    }
    return Integer.MAX_VALUE;
  }

  private void advanceTop() {
    int top = heap[0];
    if (++streamNext[top] == streamSize[top]) {
      removeTop();
    } else {
      siftDown(0);
    }
  }

  private void removeTop() {
    heap[0] = heap[--streams];
    if (streams > 0) {
      siftDown(0);
    }
  }

  private void siftUp(int i) {
    int id = heap[i];
    int key = streamAt(id);
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (streamAt(heap[parent]) <= key) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = id;
  }

  private void siftDown(int i) {
    int id = heap[i];
    int key = streamAt(id);
    while (true) {
      int child = 2 * i + 1;
      if (child >= streams) {
        break;
      }
      if (child + 1 < streams && streamAt(heap[child + 1]) < streamAt(heap[child])) {
        child++;
      }
      if (streamAt(heap[child]) >= key) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = id;
  }

  /** Which ends of a flow that just took its rate are saturated: see {@link Memo#saturated}. */
  private static byte saturatedEnds(PortBudget budget, int src, int dst) {
    return (byte)
        ((budget.up(src) <= PortBudget.EPS ? 1 : 0) | (budget.down(dst) <= PortBudget.EPS ? 2 : 0));
  }

  /**
   * Notes the inputs of a step about to be computed ({@code last}: the coflow's memo of that kind,
   * or null).
   */
  private Memo start(Memo last, Coflow c, int kind, PortBudget budget) {
    Memo m = last;
    if (m == null) {
      m = new Memo();
      memosOf(kind).put(c, m);
    }
    m.kind = kind;
    noteStart(m, c, budget.residual);
    return m;
  }

  /** Notes the coflow's flows and the residuals at their ports ({@code res}) as a step's inputs. */
  private void noteStart(Memo m, Coflow c, double[] res) {
    m.changes = c.activeChanges();
    int size = 0;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0) {
        size++;
      }
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0) {
        size++;
      }
    }
    if (m.resources.length < size) {
      m.resources = new int[size];
      m.before = new double[size];
      m.after = new double[size];
    }
    int j = 0;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0) {
        m.resources[j++] = p;
      }
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0) {
        m.resources[j++] = ports + p;
      }
    }
    m.size = size;
    for (j = 0; j < size; j++) {
      m.before[j] = res[m.resources[j]];
    }
  }

  /**
   * Notes the outcome of the max-min or backfill step just computed: the residuals it left and the
   * rates it added. The step's flows were all offered through {@link #offerCoflow}, so the group
   * lists them in position order with their positions and the rates the water-filling gave them:
   * only they are looked at, not every active flow of the coflow.
   */
  private void record(Memo m, PortBudget budget) {
    if (m.moving.length < groupSize) {
      m.moving = new int[groupSize];
      m.rates = new double[groupSize];
    }
    m.moved = noteMoving(m, 0);
    noteResiduals(m, budget.residual);
    // A rise is redone for the flows that moved; it stands for the step if they all did (they do:
    // every level is above 0; a guard, as the moving flows and the members must line up).
    m.riseKnown &= m.moved == groupSize;
    if (m.riseKnown) {
      if (m.event.length < groupSize) {
        m.event = new int[m.moving.length];
        m.slot = new int[m.moving.length];
      }
      System.arraycopy(eventOf, 0, m.event, 0, groupSize);
      System.arraycopy(slotOf, 0, m.slot, 0, groupSize);
    }
  }

  /**
   * Notes in {@code m}, from entry {@code moved} on, the flows of the group just water-filled that
   * got a rate (their positions, from the group) and that rate; returns the new number of entries.
   */
  private int noteMoving(Memo m, int moved) {
    for (int i = 0; i < groupSize; i++) {
      double r = levels[i];
      if (r > 0) {
        m.moving[moved] = livePosition[i];
        m.rates[moved++] = r;
      }
    }
    return moved;
  }

  /** Notes the residuals a step left at the ports it started from. */
  private static void noteResiduals(Memo m, double[] res) {
    for (int j = 0; j < m.size; j++) {
      m.after[j] = res[m.resources[j]];
    }
  }

  /**
   * Max-min fair sharing of a coflow's active flows in groups that take the budget one after the
   * other (CODA's flow queues inside a coflow): group {@code j} is the flows at positions {@code
   * byGroup[from[j] .. from[j + 1])}, in that order, and {@code groupOf[k]} is the group of the
   * flow at position k. Each group's flows with capacity left at both ends share max-min fairly
   * what the groups before it left. Replayed like the other memoised steps when the coflow's flows,
   * their groups and the residuals at its ports are those of its last step of groups; else, with
   * the same flows and groups, each group on its own is replayed or redone from its last rise
   * ({@link #refilled}) when its inputs allow, like a coflow's max-min step.
   */
  public void maxMinByGroups(
      Coflow c,
      int[] groupOf,
      int[] byGroup,
      int[] from,
      int groups,
      PortBudget budget,
      Schedule schedule) {
    int n = c.activeCount();
    if (!mayTake(c, budget)) {
      return;
    }
    Memo last = groupSteps.get(c);
    boolean sameGroups =
        last != null
            && last.changes == c.activeChanges()
            && java.util.Arrays.equals(last.groupOf, 0, n, groupOf, 0, n);
    if (sameGroups && replayed(last, c, GROUPS, budget, schedule)) {
      return;
    }
    Memo memo = start(last, c, GROUPS, budget);
    if (memo.groupOf.length < n) {
      memo.groupOf = new int[Math.max(n, 2 * memo.groupOf.length)];
      memo.moving = new int[memo.groupOf.length];
      memo.rates = new double[memo.groupOf.length];
    }
    if (memo.groups.length < groups) {
      memo.groups = java.util.Arrays.copyOf(memo.groups, groups);
    }
    System.arraycopy(groupOf, 0, memo.groupOf, 0, n);
    double[] res = budget.residual;
    int moved = 0;
    for (int j = 0; j < groups; j++) {
      if (from[j + 1] == from[j]) {
        continue;
      }
      // The group's own step: its flows are the same as last time if the coflow's and their
      // groups are, and it depends on nothing else but the residuals it starts from.
      Memo g = memo.groups[j];
      if (g == null) {
        g = new Memo();
        g.kind = GROUPS;
        memo.groups[j] = g;
      }
      if (!sameGroups
          || !(replayed(g, c, GROUPS, budget, schedule)
              || refilled(g, c, GROUPS, budget, schedule))) {
        noteStart(g, c, res);
        groupSize = 0;
        for (int p = from[j], end = from[j + 1]; p < end; p++) {
          int k = byGroup[p];
          int src = c.activeSrc(k);
          int dst = c.activeDst(k);
          if (res[src] > PortBudget.EPS && res[ports + dst] > PortBudget.EPS) {
            addToGroup(src, dst, c.activeIndex(k));
            livePosition[groupSize - 1] = k;
          }
        }
        g.riseKnown = false;
        rising = g;
        fillGroup(budget, schedule);
        rising = null;
        // A group's flows had no rate before this step: the rate each has now is its level.
        record(g, budget);
      }
      System.arraycopy(g.moving, 0, memo.moving, moved, g.moved);
      System.arraycopy(g.rates, 0, memo.rates, moved, g.moved);
      moved += g.moved;
    }
    memo.moved = moved;
    noteResiduals(memo, res);
  }

  /**
   * Active flows of {@code c} into receivers with capacity left and, if {@code byReceiver} is not
   * null, whose receiver {@code r} has {@code byReceiver[r] == cls}. Costs the coflow's receivers.
   */
  private int flowsIntoFreeReceivers(Coflow c, double[] res, int[] byReceiver, int cls) {
    int flows = 0;
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (res[ports + p] > PortBudget.EPS && (byReceiver == null || byReceiver[p] == cls)) {
        flows += c.activeFlowsTo(p);
      }
    }
    return flows;
  }

  /**
   * Adds to the group, in the coflow's order, every active flow of {@code c} with capacity left at
   * both ports, that is {@code eligible} (null: all) and, if {@code byReceiver} is not null, whose
   * receiver {@code r} has {@code byReceiver[r] == cls} (the backfill of one class). When most
   * flows wait at saturated receivers, only the flows into the others are looked at.
   */
  void offerCoflow(Coflow c, int[] byReceiver, int cls, PortBudget budget, boolean[] eligible) {
    double[] res = budget.residual;
    int n = c.activeCount();
    if (2 * flowsIntoFreeReceivers(c, res, byReceiver, cls) < n) {
      int words = markFree(c, res, byReceiver, cls);
      for (int k = nextMarked(0, words); k < n; k = nextMarked(k + 1, words)) {
        int index = c.activeIndex(k);
        if (eligible == null || eligible[index]) {
          addToGroup(c.activeSrc(k), c.activeDst(k), index);
          livePosition[groupSize - 1] = k;
        }
      }
      return;
    }
    for (int k = 0; k < n; k++) {
      int src = c.activeSrc(k);
      int dst = c.activeDst(k);
      int index = c.activeIndex(k);
      if ((byReceiver == null || byReceiver[dst] == cls)
          && (eligible == null || eligible[index])
          && res[src] > PortBudget.EPS
          && res[ports + dst] > PortBudget.EPS) {
        addToGroup(src, dst, index);
        livePosition[groupSize - 1] = k;
      }
    }
  }

  private long[] marks = new long[64];
  private long markedSteps;

  /** How many coflow steps found their flows through the receivers' lists (for tests). */
  long markedSteps() {
    return markedSteps;
  }

  /**
   * Marks the positions of {@code c}'s active flows with capacity left at both ends (and, if {@code
   * byReceiver} is not null, a receiver {@code r} with {@code byReceiver[r] == cls}), visiting only
   * the flows into such receivers; returns the number of words of {@link #marks} in use. {@link
   * #nextMarked} then lists them in position order.
   */
  private int markFree(Coflow c, double[] res, int[] byReceiver, int cls) {
    markedSteps++;
    int words = (c.activeCount() + 63) >>> 6;
    if (marks.length < words) {
      marks = new long[Math.max(words, 2 * marks.length)];
    }
    long[] bits = marks;
    java.util.Arrays.fill(bits, 0, words, 0L);
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      int count = c.activeFlowsTo(p);
      if (count > 0
          && res[ports + p] > PortBudget.EPS
          && (byReceiver == null || byReceiver[p] == cls)) {
        int[] positions = c.activePositionsTo(p);
        for (int j = 0; j < count; j++) {
          int k = positions[j];
          if (res[c.activeSrc(k)] > PortBudget.EPS) {
            bits[k >>> 6] |= 1L << k;
          }
        }
      }
    }
    return words;
  }

  /**
   * Marks the positions of all {@code c}'s active flows but those into receivers or out of senders
   * without capacity left; returns the number of words of {@link #marks} in use. Costs a word per
   * 64 flows plus the flows of saturated ports: {@link #markFree}'s complement.
   */
  private int markAll(Coflow c, double[] res) {
    allMarkedSteps++;
    int n = c.activeCount();
    int words = (n + 63) >>> 6;
    if (marks.length < words) {
      marks = new long[Math.max(words, 2 * marks.length)];
    }
    java.util.Arrays.fill(marks, 0, words, -1L);
    if ((n & 63) != 0) {
      marks[words - 1] = (1L << n) - 1;
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0 && res[ports + p] <= PortBudget.EPS) {
        unmark(c.activePositionsTo(p), c.activeFlowsTo(p), -1);
      }
    }
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0 && res[p] <= PortBudget.EPS) {
        unmark(c.activePositionsFrom(p), c.activeFlowsFrom(p), -1);
      }
    }
    return words;
  }

  /**
   * Clears the marks of those of the first {@code count} {@code positions} (in increasing order)
   * after position {@code after}: the flows of a port saturated at {@code after}, which a scan in
   * position order has not reached yet. None of them can get anything any more, and a cleared word
   * is skipped 64 positions at a time instead of each of its flows being visited and found without
   * capacity.
   */
  private void unmark(int[] positions, int count, int after) {
    long[] bits = marks;
    int from = java.util.Arrays.binarySearch(positions, 0, count, after);
    for (int j = from < 0 ? -from - 1 : from + 1; j < count; j++) {
      int k = positions[j];
      bits[k >>> 6] &= ~(1L << k);
    }
  }

  private long allMarkedSteps;

  /** How many greedy steps marked all their coflow's flows (for tests). */
  long allMarkedSteps() {
    return allMarkedSteps;
  }

  /** The first marked position at or after {@code from}, or {@link Integer#MAX_VALUE}. */
  private int nextMarked(int from, int words) {
    int w = from >>> 6;
    if (w >= words) {
      return Integer.MAX_VALUE;
    }
    long b = marks[w] & (-1L << from);
    while (b == 0) {
      if (++w == words) {
        return Integer.MAX_VALUE;
      }
      b = marks[w];
    }
    return (w << 6) + Long.numberOfTrailingZeros(b);
  }

  /**
   * False only if no active flow of the coflow can get capacity: none of its sending ports has
   * uplink left, or none of its receiving ports downlink. Costs the coflow's ports.
   */
  public static boolean mayTake(Coflow c, PortBudget budget) {
    boolean up = false;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0 && budget.up(p) > PortBudget.EPS) {
        up = true;
        break;
      }
    }
    if (!up) {
      return false;
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0 && budget.down(p) > PortBudget.EPS) {
        return true;
      }
    }
    return false;
  }

  /** True if every port an active flow of the coflow uses still has capacity (all-or-none). */
  public static boolean allPortsFree(Coflow c, PortBudget budget) {
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0 && budget.up(p) <= PortBudget.EPS) {
        return false;
      }
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0 && budget.down(p) <= PortBudget.EPS) {
        return false;
      }
    }
    return true;
  }

  /** Starts an empty group for {@link #addToGroup} and {@link #fillGroup}. */
  public void clearGroup() {
    groupSize = 0;
  }

  public void addToGroup(Flow f) {
    addToGroup(f.src(), f.dst(), f.index());
  }

  /** Adds the active flow at dense index {@code index}, from port {@code src} to {@code dst}. */
  public void addToGroup(int src, int dst, int index) {
    if (groupSize == liveUp.length) {
      liveUp = java.util.Arrays.copyOf(liveUp, 2 * groupSize);
      liveDown = java.util.Arrays.copyOf(liveDown, 2 * groupSize);
      liveIndex = java.util.Arrays.copyOf(liveIndex, 2 * groupSize);
      livePosition = java.util.Arrays.copyOf(livePosition, 2 * groupSize);
    }
    liveUp[groupSize] = src;
    liveDown[groupSize] = ports + dst;
    liveIndex[groupSize] = index;
    groupSize++;
  }

  /**
   * Adds to the group the active flows of {@code c} that can get capacity (both ports have some
   * left), at the cost of the coflow's ports when none can.
   */
  public void offer(Coflow c, PortBudget budget) {
    if (mayTake(c, budget)) {
      offerCoflow(c, null, 0, budget, null);
    }
  }

  /** Adds the active flow at dense index {@code index} if both its ports have capacity left. */
  public void offer(int index, int src, int dst, PortBudget budget) {
    if (budget.available(src, dst) > PortBudget.EPS) {
      addToGroup(src, dst, index);
    }
  }

  /** {@link #maxMinFair} of the flows added since {@link #clearGroup}. */
  public void fillGroup(PortBudget budget, Schedule schedule) {
    fillGroup(budget, schedule, false);
  }

  /**
   * {@link #fillGroup} for a group whose members may share (sender, receiver) pairs, as the flows
   * of many coflows do (Creek's levels): a large group is gathered by pair and water-filled as
   * pairs with multiplicities when that halves its size, with bit for bit the same rates. Groups of
   * distinct pairs (one trace coflow's flows) pay one pass more; {@link #fillGroup} does not try.
   */
  public void fillGroupByPair(PortBudget budget, Schedule schedule) {
    fillGroup(budget, schedule, true);
  }

  private void fillGroup(PortBudget budget, Schedule schedule, boolean tryPairs) {
    int n = groupSize;
    if (n == 0) {
      return;
    }
    if (ones.length < n) {
      ones = new int[Math.max(n, 2 * ones.length)];
      java.util.Arrays.fill(ones, 1);
    }
    if (levels.length < n) {
      levels = new double[Math.max(n, 2 * levels.length)];
    }
    boolean byPorts = n >= 2 * ports;
    if (tryPairs && byPorts && fillMembersByPair(n, budget, schedule)) {
      return;
    }
    // The members' ends and indices are copied into int arrays as they are added: the passes
    // stay on those arrays instead of dereferencing flows scattered over the heap.
    waterFill(liveUp, liveDown, ones, n, budget.residual, levels, byPorts);
    schedule.addRates(liveIndex, levels, n);
  }

  private long pairFills;

  /** How many groups were filled as pairs (for tests). */
  long pairFills() {
    return pairFills;
  }

  /** Per (sender, receiver) pair key: its position + 1 among the pairs being gathered, else 0. */
  private int[] pairSlot = new int[0];

  private int[] pairKey = new int[0];
  private int[] memberPair = new int[0];

  /**
   * {@link #fillGroup} of a large group whose members share few (sender, receiver) pairs: the
   * members are gathered by pair and water-filled as pairs with multiplicities, which gives every
   * member bit for bit the rate water-filling the members would (same counts per resource,
   * resources listed by port in both cases) at the cost of the pairs. Gives up, allocating nothing,
   * as soon as the pairs are more than half the members.
   *
   * @return true if the group was filled
   */
  private boolean fillMembersByPair(int n, PortBudget budget, Schedule schedule) {
    if (pairSlot.length < ports * ports) {
      pairSlot = new int[ports * ports];
    }
    if (memberPair.length < n) {
      memberPair = new int[Math.max(n, 2 * memberPair.length)];
    }
    int limit = n / 2;
    ensurePairs(limit + 1);
    int m = 0;
    for (int i = 0; i < n; i++) {
      int key = liveUp[i] * ports + liveDown[i] - ports;
      int slot = pairSlot[key] - 1;
      if (slot < 0) {
        if (m == limit) {
          clearPairSlots(m);
          return false;
        }
        slot = m++;
        pairSlot[key] = m;
        pairKey[slot] = key;
        pairUp[slot] = liveUp[i];
        pairDown[slot] = liveDown[i];
        pairMult[slot] = 0;
      }
      pairMult[slot]++;
      memberPair[i] = slot;
    }
    clearPairSlots(m);
    pairFills++;
    waterFill(pairUp, pairDown, pairMult, m, budget.residual, levels, true);
    ensureHand(n);
    for (int i = 0; i < n; i++) {
      handRate[i] = levels[memberPair[i]];
    }
    schedule.addRates(liveIndex, handRate, n);
    return true;
  }

  private void clearPairSlots(int m) {
    for (int j = 0; j < m; j++) {
      pairSlot[pairKey[j]] = 0;
    }
  }

  private void ensurePairs(int n) {
    if (pairUp.length < n) {
      int len = Math.max(n, 2 * pairUp.length);
      pairUp = new int[len];
      pairDown = new int[len];
      pairMult = new int[len];
      pairAt = new int[len];
      pairKey = new int[len];
      levels = new double[Math.max(len, levels.length)];
    }
  }

  private int[] ones = new int[0];
  private double[] levels = new double[0];
  private int[] pairUp = new int[0];
  private int[] pairDown = new int[0];
  private int[] pairMult = new int[0];
  private int[] pairAt = new int[0];

  /**
   * Max-min fair sharing of the budget among groups of flows given by (sender, receiver) pair and
   * multiplicity: pair {@code k} stands for {@code count[k]} flows from port {@code src[k]} to port
   * {@code dst[k]} (distinct pairs). Water-filling gives every flow of a pair the same rate (its
   * resources are the same), so this is {@link #maxMinFair} of all those flows, with the same
   * arithmetic (a resource's count is the same integer), at the cost of the pairs. Writes each
   * pair's per-flow rate to {@code rate[k]}: 0 for a pair without capacity left at both ends.
   */
  public void fillPairs(
      int[] src, int[] dst, int[] count, int n, PortBudget budget, double[] rate) {
    fillPairs(src, dst, count, n, budget, rate, false);
  }

  /**
   * {@link #fillPairs} of pairs standing for at least {@code 2 * ports} flows when {@code
   * manyFlows}: resources are then listed by a scan of the ports, as {@link #fillGroup} lists them
   * for a group of that many flows, so the rates are bit for bit those {@link #fillGroup} gives the
   * same flows one by one, in any order (the water level of a resource depends only on how many
   * flows rise on it, and ties go to the lower port either way).
   */
  public void fillPairs(
      int[] src,
      int[] dst,
      int[] count,
      int n,
      PortBudget budget,
      double[] rate,
      boolean manyFlows) {
    ensurePairs(n);
    int m = 0;
    for (int k = 0; k < n; k++) {
      rate[k] = 0;
      if (count[k] > 0 && budget.available(src[k], dst[k]) > PortBudget.EPS) {
        pairUp[m] = src[k];
        pairDown[m] = ports + dst[k];
        pairMult[m] = count[k];
        pairAt[m++] = k;
      }
    }
    waterFill(pairUp, pairDown, pairMult, m, budget.residual, levels, manyFlows || m >= 2 * ports);
    for (int j = 0; j < m; j++) {
      rate[pairAt[j]] = levels[j];
    }
  }

  /**
   * True water-filling: entry {@code i} stands for {@code mult[i]} flows on resources {@code up[i]}
   * and {@code down[i]}. All rise together; when a resource saturates, its entries freeze at the
   * level reached and the others keep rising. Writes each entry's level to {@code level} and takes
   * it from {@code residual}.
   */
  private void waterFill(
      int[] up, int[] down, int[] mult, int n, double[] residual, double[] level, boolean byPorts) {
    if (n == 0) {
      return;
    }
    if (list.length < 2 * n) {
      list = new int[2 * n];
      frozen = new boolean[n];
    }
    // Resources are listed in the order entries first touch them or, when entries are many
    // ({@code byPorts}), by a scan of the ports (cheaper than a check per entry). The order only
    // decides which of two resources saturating at exactly the same level is taken first.
    boolean few = !byPorts;
    int t = 0;
    // Entries come in runs on one resource (a coflow's flows into one receiver, a sender's pairs):
    // a run's counts are summed in registers and stored once, not read back entry after entry.
    int runUp = up[0];
    int runDown = down[0];
    int upCount = 0;
    int upEntries = 0;
    int downCount = 0;
    int downEntries = 0;
    for (int i = 0; i < n; i++) {
      int u = up[i];
      int d = down[i];
      if (few) {
        t = touch(u, t);
        t = touch(d, t);
      }
      if (u != runUp) {
        count[runUp] += upCount;
        entries[runUp] += upEntries;
        runUp = u;
        upCount = 0;
        upEntries = 0;
      }
      if (d != runDown) {
        count[runDown] += downCount;
        entries[runDown] += downEntries;
        runDown = d;
        downCount = 0;
        downEntries = 0;
      }
      upCount += mult[i];
      upEntries++;
      downCount += mult[i];
      downEntries++;
      frozen[i] = false;
    }
    count[runUp] += upCount;
    entries[runUp] += upEntries;
    count[runDown] += downCount;
    entries[runDown] += downEntries;
    for (int r = 0; !few && r < 2 * ports; r++) {
      if (entries[r] > 0) {
        isTouched[r] = true;
        touched[t++] = r;
      }
    }
    // Counting sort of entries by resource: list[start[r] .. start[r+1]) are r's entries.
    int pos = 0;
    for (int k = 0; k < t; k++) {
      int r = touched[k];
      start[r] = pos;
      members[r] = pos;
      pos += entries[r];
    }
    for (int i = 0; i < n; i++) {
      list[members[up[i]]++] = i;
      list[members[down[i]]++] = i;
    }
    // The resources with entries rise in touch order.
    System.arraycopy(touched, 0, live, 0, t);
    if (rising != null) {
      noteRiseStart(rising, t, n, byPorts);
    }
    fillUp = up;
    fillDown = down;
    fillMult = mult;
    fillLevel = level;
    rise(live, t, count, residual, due, freezeEntries);
    fillUp = null;
    fillDown = null;
    fillMult = null;
    fillLevel = null;
    untouch(t);
  }

  /** What {@link #rise} does when resource {@code r} saturates at water level {@code at}. */
  interface Saturation {
    /**
     * Freezes the entries of {@code r} still rising at {@code at}, taking their flows off the
     * rising count of each of their resources.
     */
    void saturate(int r, double at);
  }

  /**
   * The rise of the water level, shared by {@link #waterFill} and {@link PairShares#fill}: all
   * entries still rising rise together by the smallest fair share {@code residual[r] / count[r]}
   * among the {@code alive} resources listed in {@code live}; every resource then at or below
   * {@link PortBudget#EPS} saturates (in list order), and resources nothing rises on any more drop
   * out of the list (in place, keeping the order, so ties go to the same resource as in a full
   * scan). {@code count[r]} is the number of flows still rising on resource r; {@code due} is
   * scratch of at least {@code alive} entries.
   */
  static void rise(
      int[] live, int alive, int[] count, double[] residual, int[] due, Saturation saturation) {
    double at = 0;
    while (true) {
      double step = Double.POSITIVE_INFINITY;
      int argmin = -1;
      int kept = 0;
      for (int k = 0; k < alive; k++) {
        int r = live[k];
        if (count[r] > 0) {
          live[kept++] = r;
          double s = Math.max(0, residual[r]) / count[r];
          if (s < step) {
            step = s;
            argmin = r;
          }
        }
      }
      alive = kept;
      if (argmin < 0) {
        return;
      }
      at += step;
      // One pass lowers every residual and lists the resources that saturate; they saturate
      // afterwards, in list order. A saturation only lowers other resources' counts, so this is
      // the same as lowering every residual first and then checking each resource in turn, as
      // long as each one's count is checked again when its turn comes.
      int dueSize = 0;
      for (int k = 0; k < alive; k++) {
        int r = live[k];
        double left = r == argmin ? 0 : residual[r] - step * count[r];
        residual[r] = left;
        if (left <= PortBudget.EPS) {
          due[dueSize++] = r;
        }
      }
      for (int k = 0; k < dueSize; k++) {
        int r = due[k];
        if (count[r] > 0) {
          residual[r] = Math.max(0, residual[r]);
          saturation.saturate(r, at);
        }
      }
    }
  }

  // The entries of the water-filling under way, for freezeEntries.
  private int[] fillUp;
  private int[] fillDown;
  private int[] fillMult;
  private double[] fillLevel;

  private final Saturation freezeEntries = this::freezeEntries;

  /** Freezes resource r's entries still rising (listed by the counting sort of waterFill). */
  private void freezeEntries(int r, double at) {
    int[] up = fillUp;
    int[] down = fillDown;
    int[] mult = fillMult;
    Memo m = rising;
    if (m != null) {
      noteSaturation(m, r, at);
      return;
    }
    for (int j = start[r], end = members[r]; j < end; j++) {
      int i = list[j];
      if (!frozen[i]) {
        frozen[i] = true;
        fillLevel[i] = at;
        count[up[i]] -= mult[i];
        count[down[i]] -= mult[i];
      }
    }
  }

  /**
   * Per member of the water-filling being noted: the saturation that froze it, and the entry of its
   * other end in the memo's {@code otherEnds}.
   */
  private int[] eventOf = new int[1024];

  private int[] slotOf = new int[1024];

  /** Notes the start of the rise of a coflow's water-filling (members of one flow each). */
  private void noteRiseStart(Memo m, int t, int n, boolean byPorts) {
    if (m.riseLive.length < t) {
      int len = Math.max(t, 2 * m.riseLive.length);
      m.riseLive = new int[len];
      m.riseCounts = new int[len];
      m.eventResource = new int[len];
      m.eventEnd = new int[len];
    }
    if (m.otherEnds.length < n) {
      m.otherEnds = new int[Math.max(n, 2 * m.otherEnds.length)];
    }
    if (eventOf.length < n) {
      eventOf = new int[Math.max(n, 2 * eventOf.length)];
      slotOf = new int[eventOf.length];
    }
    for (int k = 0; k < t; k++) {
      m.riseLive[k] = live[k];
      m.riseCounts[k] = count[live[k]];
    }
    m.riseSize = t;
    m.riseByPorts = byPorts;
    m.events = 0;
    m.others = 0;
    m.riseKnown = true;
  }

  /**
   * {@link #freezeEntries} of a coflow's water-filling being noted (members of one flow each): also
   * notes which resource saturated, the other ends of the members it froze and, per member, this
   * saturation.
   */
  private void noteSaturation(Memo m, int r, double at) {
    int e = m.events++;
    m.eventResource[e] = r;
    int[] up = fillUp;
    int[] down = fillDown;
    int[] others = m.otherEnds;
    int o = m.others;
    for (int j = start[r], end = members[r]; j < end; j++) {
      int i = list[j];
      if (!frozen[i]) {
        frozen[i] = true;
        fillLevel[i] = at;
        int u = up[i];
        int d = down[i];
        count[u]--;
        count[d]--;
        slotOf[i] = o;
        others[o++] = u == r ? d : u;
        eventOf[i] = e;
      }
    }
    m.others = o;
    m.eventEnd[e] = o;
  }

  /**
   * Strict priority per flow: in the given order, each flow takes everything both of its ports
   * still have (Sincronia's greedy allocation; also the shape of the shared backfill).
   */
  public void greedy(Coflow c, PortBudget budget, Schedule schedule) {
    if (!mayTake(c, budget)) {
      return;
    }
    Memo last = memos.get(c);
    if (!replayed(last, c, GREEDY, budget, schedule) && !rerated(last, c, budget, schedule)) {
      Memo memo = start(last, c, GREEDY, budget);
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
      if (memo.moving.length < n) {
        memo.moving = new int[n];
        memo.rates = new double[n];
      }
      if (memo.saturated.length < n) {
        memo.saturated = new byte[memo.moving.length];
      }
      int moved = 0;
      // Visit only marked flows, in the same order: capacity only shrinks during the step, so an
      // unmarked flow could get nothing. When most flows wait at a saturated receiver, the flows
      // with capacity left at both ends are marked through the receivers' lists. Otherwise all
      // are marked and the flows of saturated ports unmarked. A port's flows not reached yet are
      // unmarked when it saturates during the step: each then costs a bit cleared, not a visit.
      int words = 0;
      boolean all = 2 * intoFree >= n;
      if (upFree > 0 && downFree > 0) {
        words = all ? markAll(c, budget.residual) : markFree(c, budget.residual, null, 0);
      }
      for (int k = nextMarked(0, words);
          k < n && upFree > 0 && downFree > 0;
          k = nextMarked(k + 1, words)) {
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
              unmark(c.activePositionsFrom(src), c.activeFlowsFrom(src), k);
            }
          }
          if (budget.down(dst) <= PortBudget.EPS) {
            downFree--;
            unmark(c.activePositionsTo(dst), c.activeFlowsTo(dst), k);
          }
          // Its flows had no rate before this step: the rate it has now is r.
          memo.saturated[moved] = saturatedEnds(budget, src, dst);
          memo.moving[moved] = k;
          memo.rates[moved++] = r;
        }
      }
      memo.moved = moved;
      rateByPosition(c, memo.moving, memo.rates, moved, schedule);
      noteResiduals(memo, budget.residual);
    }
  }

  /** {@link #greedy(Coflow, PortBudget, Schedule)} over a list of flows in order. */
  public void greedy(List<Flow> flowsInOrder, PortBudget budget, Schedule schedule) {
    for (int i = 0, n = flowsInOrder.size(); i < n; i++) {
      Flow f = flowsInOrder.get(i);
      double r = budget.available(f.src(), f.dst());
      if (r > PortBudget.EPS) {
        schedule.addRate(f.index(), r);
        budget.take(f.src(), f.dst(), r);
      }
    }
  }

  /**
   * Varys' MADD for one coflow: the coflow's effective bottleneck Γ on the residual capacity, then
   * each flow gets remaining/Γ so that all its flows finish together at Γ. Needs known sizes.
   *
   * @return Γ in seconds, or infinity (nothing allocated) if a port the coflow needs is saturated
   */
  public double madd(Coflow c, PortBudget budget, Schedule schedule) {
    double gamma = bottleneck(c, budget.residual);
    if (gamma == Double.POSITIVE_INFINITY || gamma <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    int n = c.activeCount();
    ensureHand(n);
    for (int k = 0; k < n; k++) {
      double r = c.activeRemaining(k) / gamma;
      handFlow[k] = c.activeIndex(k);
      handRate[k] = r;
      budget.take(c.activeSrc(k), c.activeDst(k), r);
    }
    schedule.addRates(handFlow, handRate, n);
    return gamma;
  }

  /**
   * Effective bottleneck Γ of a coflow's remaining bytes (flows of known size) against the given
   * per-resource capacities (uplinks, then downlinks): max over its ports of bytes / capacity.
   * Infinity if a port it still needs has no capacity. Costs the coflow's ports, not its flows.
   */
  public double bottleneck(Coflow c, double[] capacity) {
    double gamma = 0;
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      double bytes = c.remainingFrom(p);
      if (bytes > 0) {
        gamma =
            capacity[p] <= PortBudget.EPS
                ? Double.POSITIVE_INFINITY
                : Math.max(gamma, bytes / capacity[p]);
      }
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      double bytes = c.remainingTo(p);
      if (bytes > 0) {
        double cap = capacity[ports + p];
        gamma = cap <= PortBudget.EPS ? Double.POSITIVE_INFINITY : Math.max(gamma, bytes / cap);
      }
    }
    return gamma;
  }

  private int touch(int r, int t) {
    if (!isTouched[r]) {
      isTouched[r] = true;
      touched[t++] = r;
    }
    return t;
  }

  private void untouch(int t) {
    for (int k = 0; k < t; k++) {
      int r = touched[k];
      isTouched[r] = false;
      count[r] = 0;
      entries[r] = 0;
    }
  }
}
