package org.coflow.core.policy;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;

/**
 * The rate allocation steps policies are built from. Each takes capacity from a {@link PortBudget}
 * and adds rates to a {@link Schedule}; none allocates more than the budget holds.
 *
 * <p>A coflow's steps are memoised ({@link StepMemo}): replayed when neither its flows nor the
 * residuals at its ports changed since its last step of the same kind, else redone from the last
 * one where that is cheaper and gives the same rates to the last bit ({@link Refill} for
 * water-filling, {@link GreedySteps} for greedy steps), else computed in full ({@link FlowGroup},
 * {@link WaterFilling}). A max-min or backfill step replayed or redone from its step in the last
 * decision may be held in the schedule rather than written, the flows whose rates changed listed
 * ({@link #holdRedone}).
 *
 * <p>Not thread-safe: an instance keeps scratch arrays sized to the fabric, so every policy owns
 * one.
 */
public final class Allocator {
  private final int ports;
  private final RateHand hand = new RateHand();
  private final FlowGroup group;
  private final FlowMarks marks;
  private final Refill refill;
  private final GreedySteps greedySteps;

  /** Per coflow, its last max-min or greedy step, its last backfill, its last step of groups. */
  private final IdentityHashMap<Coflow, StepMemo> memos = new IdentityHashMap<>();

  private final IdentityHashMap<Coflow, StepMemo> backfills = new IdentityHashMap<>();
  private final IdentityHashMap<Coflow, StepMemo> groupSteps = new IdentityHashMap<>();
  private long replays;

  /** Decisions begun ({@link #beginDecision}); whether the last one's rates were kept. */
  private long decision;

  private boolean lastDecisionKept;
  private boolean holdRedone;
  private long held;

  public Allocator(int ports) {
    this.ports = ports;
    this.group = new FlowGroup(ports, new WaterFilling(ports), hand);
    this.marks = new FlowMarks(ports);
    this.refill = new Refill(ports);
    this.greedySteps = new GreedySteps(ports, hand, marks);
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
    group.clear();
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
    memoisedFill(c, StepMemo.MAX_MIN, budget, schedule);
  }

  /**
   * The backfill of a priority class that is one whole coflow: its active flows with capacity left
   * at both ends share the leftovers max-min fairly, on top of the rates they already have.
   * Replayed, like a max-min step, when the coflow's flows and the residuals at its ports are those
   * of its last backfill.
   */
  void backfillCoflow(Coflow c, PortBudget budget, Schedule schedule) {
    memoisedFill(c, StepMemo.BACKFILL, budget, schedule);
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
    schedule.giving(c);
    StepMemo last = memosOf(kind).get(c);
    if (replays(last, c, kind, budget)) {
      handOut(last, c, null, 0, schedule);
    } else if (refill.refilled(last, c, kind, budget)) {
      handOut(last, c, refill.changedAt(), refill.changes(), schedule);
    } else {
      StepMemo memo = start(last, c, kind, budget);
      group.clear();
      offerCoflow(c, null, 0, budget, null);
      memo.riseKnown = false;
      group.fill(budget, schedule, false, memo);
      record(memo, budget);
      memo.decision = decision;
    }
    schedule.giving(null);
  }

  /**
   * Gives the flows of a step replayed or redone from memo {@code m} their rates, which differ from
   * the rates it gave them before only for its moving flows {@code changedAt[0 .. changes)}. When
   * the caller passes over held steps and that step was the last decision's, whose rates the flows
   * kept, the step is held rather than written ({@link Schedule#hold}): the flows move at these
   * rates already, but for the changed ones, which the schedule lists.
   */
  private void handOut(StepMemo m, Coflow c, int[] changedAt, int changes, Schedule schedule) {
    if (holdRedone
        && lastDecisionKept
        && m.decision == decision - 1
        && schedule.hold(c, m.moving, m.rates, m.moved, changedAt, changes)) {
      held += m.moved;
    } else {
      hand.rateByPosition(c, m.moving, m.rates, m.moved, schedule);
    }
    m.decision = decision;
  }

  /**
   * Starts a decision. {@code lastKept}: the last decision's schedule came back with the rates its
   * steps gave, none added or raised since.
   */
  void beginDecision(boolean lastKept) {
    decision++;
    lastDecisionKept = lastKept;
  }

  /**
   * Lets max-min and backfill steps replayed or redone from a coflow's step of the last decision be
   * held in the schedule rather than written, the flows whose rates changed listed ({@link
   * Schedule#hold}); for a policy whose caller passes over held steps ({@link
   * SchedulingPolicy#passesOverHeld}).
   */
  void holdRedone() {
    holdRedone = true;
  }

  /** How many flows' rates steps held rather than wrote (for tests). */
  long held() {
    return held;
  }

  private IdentityHashMap<Coflow, StepMemo> memosOf(int kind) {
    return kind == StepMemo.BACKFILL ? backfills : kind == StepMemo.GROUPS ? groupSteps : memos;
  }

  /** How many coflows have a remembered step (for tests). */
  int remembered() {
    return memos.size() + backfills.size() + groupSteps.size();
  }

  /** How many coflow steps were replayed rather than computed (for tests and profiling). */
  long replays() {
    return replays;
  }

  /** The water-filling steps redone from their last rise, and their counts (for tests). */
  Refill refill() {
    return refill;
  }

  /** The greedy steps, and how many were redone from the coflow's last one (for tests). */
  GreedySteps greedySteps() {
    return greedySteps;
  }

  /** The flows' marks, and how many steps found their flows through them (for tests). */
  FlowMarks marks() {
    return marks;
  }

  /** The groups' water-filling, and how many groups it filled as pairs (for tests). */
  FlowGroup group() {
    return group;
  }

  /**
   * True if the coflow's last step of this kind ({@code m}, its memo of that kind or null) had the
   * same inputs: its outcome is replayed.
   */
  private boolean replayed(StepMemo m, Coflow c, int kind, PortBudget budget, Schedule schedule) {
    if (!replays(m, c, kind, budget)) {
      return false;
    }
    hand.rateByPosition(c, m.moving, m.rates, m.moved, schedule);
    return true;
  }

  /**
   * {@link #replayed} but for handing out the rates: the residuals the step left are taken, and the
   * caller gives the flows their rates.
   */
  private boolean replays(StepMemo m, Coflow c, int kind, PortBudget budget) {
    if (m == null || m.kind != kind || m.changes != c.activeChanges()) {
      return false;
    }
    double[] res = budget.residual;
    if (!m.sameResiduals(res)) {
      return false;
    }
    for (int j = 0; j < m.size; j++) {
      res[m.resources[j]] = m.after[j];
    }
    replays++;
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

  /**
   * Notes the inputs of a step about to be computed ({@code last}: the coflow's memo of that kind,
   * or null).
   */
  private StepMemo start(StepMemo last, Coflow c, int kind, PortBudget budget) {
    StepMemo m = last;
    if (m == null) {
      m = new StepMemo();
      memosOf(kind).put(c, m);
    }
    m.kind = kind;
    m.noteStart(c, budget.residual, ports);
    return m;
  }

  /**
   * Notes the outcome of the max-min or backfill step just computed: the residuals it left and the
   * rates it added. The step's flows were all added to the group with their positions (by {@link
   * #offerCoflow}, or a group of {@link #maxMinByGroups}), in position order, so the group lists
   * them with the rates the water-filling gave them: only they are looked at, not every active flow
   * of the coflow.
   */
  private void record(StepMemo m, PortBudget budget) {
    int n = group.size();
    m.ensureMoving(n);
    int moved = 0;
    for (int i = 0; i < n; i++) {
      double r = group.level(i);
      if (r > 0) {
        m.moving[moved] = group.position(i);
        m.rates[moved++] = r;
      }
    }
    m.moved = moved;
    m.noteResiduals(budget.residual);
    // A rise is redone for the flows that moved; it stands for the step if they all did (they do:
    // every level is above 0; a guard, as the moving flows and the members must line up).
    m.riseKnown &= m.moved == n;
    if (m.riseKnown) {
      if (m.event.length < n) {
        m.event = new int[m.moving.length];
        m.slot = new int[m.moving.length];
      }
      System.arraycopy(group.eventOf(), 0, m.event, 0, n);
      System.arraycopy(group.slotOf(), 0, m.slot, 0, n);
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
   * ({@link Refill}) when its inputs allow, like a coflow's max-min step.
   */
  public void maxMinByGroups(
      Coflow c,
      int[] groupOf,
      int[] byGroup,
      int[] from,
      int groups,
      PortBudget budget,
      Schedule schedule) {
    if (!mayTake(c, budget)) {
      return;
    }
    schedule.giving(c);
    try {
      int n = c.activeCount();
      StepMemo last = groupSteps.get(c);
      boolean sameGroups =
          last != null
              && last.changes == c.activeChanges()
              && Arrays.equals(last.groupOf, 0, n, groupOf, 0, n);
      if (sameGroups && replayed(last, c, StepMemo.GROUPS, budget, schedule)) {
        return;
      }
      StepMemo memo = start(last, c, StepMemo.GROUPS, budget);
      if (memo.groupOf.length < n) {
        memo.groupOf = new int[Math.max(n, 2 * memo.groupOf.length)];
        memo.moving = new int[memo.groupOf.length];
        memo.rates = new double[memo.groupOf.length];
      }
      if (memo.groups.length < groups) {
        memo.groups = Arrays.copyOf(memo.groups, groups);
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
        StepMemo g = memo.groups[j];
        if (g == null) {
          g = new StepMemo();
          g.kind = StepMemo.GROUPS;
          memo.groups[j] = g;
        }
        if (!sameGroups
            || !(replayed(g, c, StepMemo.GROUPS, budget, schedule)
                || refilled(g, c, budget, schedule))) {
          g.noteStart(c, res, ports);
          group.clear();
          for (int p = from[j], end = from[j + 1]; p < end; p++) {
            int k = byGroup[p];
            int src = c.activeSrc(k);
            int dst = c.activeDst(k);
            if (res[src] > PortBudget.EPS && res[ports + dst] > PortBudget.EPS) {
              group.add(src, dst, c.activeIndex(k), k);
            }
          }
          g.riseKnown = false;
          group.fill(budget, schedule, false, g);
          // A group's flows had no rate before this step: the rate each has now is its level.
          record(g, budget);
        }
        System.arraycopy(g.moving, 0, memo.moving, moved, g.moved);
        System.arraycopy(g.rates, 0, memo.rates, moved, g.moved);
        moved += g.moved;
      }
      memo.moved = moved;
      memo.noteResiduals(res);
    } finally {
      schedule.giving(null);
    }
  }

  /** A group's step redone from its last rise ({@link Refill}), its rates handed out. */
  private boolean refilled(StepMemo g, Coflow c, PortBudget budget, Schedule schedule) {
    if (!refill.refilled(g, c, StepMemo.GROUPS, budget)) {
      return false;
    }
    hand.rateByPosition(c, g.moving, g.rates, g.moved, schedule);
    return true;
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
    if (2 * marks.flowsIntoFreeReceivers(c, res, byReceiver, cls) < n) {
      int words = marks.markFree(c, res, byReceiver, cls);
      for (int k = marks.next(0, words); k < n; k = marks.next(k + 1, words)) {
        int index = c.activeIndex(k);
        if (eligible == null || eligible[index]) {
          group.add(c.activeSrc(k), c.activeDst(k), index, k);
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
        group.add(src, dst, index, k);
      }
    }
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
    group.clear();
  }

  public void addToGroup(Flow f) {
    group.add(f.src(), f.dst(), f.index());
  }

  /** Adds the active flow at dense index {@code index}, from port {@code src} to {@code dst}. */
  public void addToGroup(int src, int dst, int index) {
    group.add(src, dst, index);
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
      group.add(src, dst, index);
    }
  }

  /** {@link #maxMinFair} of the flows added since {@link #clearGroup}. */
  public void fillGroup(PortBudget budget, Schedule schedule) {
    group.fill(budget, schedule, false, null);
  }

  /**
   * {@link #fillGroup} for a group whose members may share (sender, receiver) pairs, as the flows
   * of many coflows do (Creek's levels): a large group is gathered by pair and water-filled as
   * pairs with multiplicities when that halves its size, with bit for bit the same rates. Groups of
   * distinct pairs (one trace coflow's flows) pay one pass more; {@link #fillGroup} does not try.
   */
  public void fillGroupByPair(PortBudget budget, Schedule schedule) {
    group.fill(budget, schedule, true, null);
  }

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
    group.fillPairs(src, dst, count, n, budget, rate);
  }

  /**
   * Strict priority per flow: in the given order, each flow takes everything both of its ports
   * still have (Sincronia's greedy allocation; also the shape of the shared backfill).
   */
  public void greedy(Coflow c, PortBudget budget, Schedule schedule) {
    if (!mayTake(c, budget)) {
      return;
    }
    StepMemo last = memos.get(c);
    schedule.giving(c);
    if (!replayed(last, c, StepMemo.GREEDY, budget, schedule)
        && !greedySteps.rerated(last, c, budget, schedule)) {
      greedySteps.full(start(last, c, StepMemo.GREEDY, budget), c, budget, schedule);
    }
    schedule.giving(null);
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
    hand.ensure(n);
    for (int k = 0; k < n; k++) {
      double r = c.activeRemaining(k) / gamma;
      hand.flow[k] = c.activeIndex(k);
      hand.rate[k] = r;
      budget.take(c.activeSrc(k), c.activeDst(k), r);
    }
    schedule.addRates(hand.flow, hand.rate, n);
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
}
