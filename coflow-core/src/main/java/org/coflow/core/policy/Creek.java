package org.coflow.core.policy;

import java.util.IdentityHashMap;
import java.util.Map;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.PolicyType;

/**
 * Creek (seed 000): receiver-side multi-level feedback queues, non-clairvoyant. Every receiver puts
 * each coflow it receives into one of K priority levels by the coflow's bytes received, with the
 * coflow-wide count taken from a shared per-coflow store, and flows are served in strict priority
 * of their receiver's level.
 *
 * <p>Decisions ({@code reference/seeds/000-creek.md} §6):
 *
 * <ul>
 *   <li>D1/D8: the "third-party store" is the master's per-coflow byte counter; receivers see a
 *       snapshot refreshed every Δ. A receiver uses max(snapshot, its own fresh count of bytes it
 *       received for the coflow), so its level can only be ahead of the store, and receivers of one
 *       coflow may disagree for up to Δ (the out-of-sync view the decentralised design has).
 *   <li>D2: K = 8 levels, thresholds 10 MiB x10^i (Aalo's spacing; the paper gives none).
 *   <li>D3: the "coflow condition" rule is off (level from bytes only).
 *   <li>D5: strict priority across levels, per-flow max-min fair sharing within a level.
 *   <li>D6: starvation is tracked per sub-coflow (coflow, receiver): for every {@code starvation}
 *       seconds (default 200 ms, Linux's minimum RTO) in which none of its flows has had bandwidth,
 *       the receiver raises it one level ("repeated until the flow escapes the starvation"); the
 *       raise holds while it is served and ends when its bytes demote it again.
 *   <li>D11: known sizes are ignored.
 * </ul>
 */
public final class Creek extends AbstractPolicy implements SharesByLevelPair {
  /** The most priority levels Creek takes (switch queues). */
  public static final int MAX_LEVELS = 8;

  private final int levels;
  private final Thresholds ladder;
  private final double delta;
  private final double starvation;
  private final Map<Coflow, SubCoflows> subs = new IdentityHashMap<>();
  private long period = Long.MIN_VALUE;

  /** Per level, its members in this decision. */
  private final LevelMembers members;

  private Schedule ratesOf;

  /**
   * By {@code slot * flatPorts + receiver} ({@link Coflow#slot}): the level of each (coflow,
   * receiver) with active flows at the last decision, and the rate it receives. Flat arrays keyed
   * by the state's per-flow slots, so that passes over the flows in index order never dereference a
   * coflow.
   */
  private int[] levelOf = new int[0];

  private double[] rateTo = new double[0];
  private int flatPorts;

  /** Each (coflow, receiver)'s sum of its counted senders' pair rates, kept while it holds. */
  private final GroupSums sums = new GroupSums();

  /** The rate changes {@link #ratesOf} had when its rates per receiver were summed. */
  private long ratesChanges;

  /**
   * The active flows per level counted by (sender, receiver) pair, kept from one decision to the
   * next: a (coflow, receiver) recounts its flows only when its level or its flows change. Null
   * when flows are not counted (also on a fabric too large for them), and from the start or a
   * change of {@link #keepCounts} until the next decision.
   */
  private LevelPairCounts counts;

  /** The levels filled from the counts in this decision: a bit per level. */
  private int countedLevels;

  /** False (tests only) to fill every level flow by flow, as a check of the kept counts. */
  private boolean keepCounts = true;

  /** The entry point by groups is on ({@link #groups}): no per-flow rates at counted levels. */
  private CreekGroups groups;

  /** How the levels were filled. */
  private final FillCounts fills = new FillCounts();

  /** Whether levels with many flows are filled from the kept pair counts (tests turn it off). */
  void keepCounts(boolean on) {
    if (!on && groups != null) {
      throw new IllegalStateException("Creek's entry point by groups needs the kept pair counts");
    }
    keepCounts = on;
    dropCounts();
  }

  /** Whether the sums per (coflow, receiver) that still hold are kept (tests turn it off). */
  void keepSums(boolean on) {
    sums.keep(on);
  }

  /** The sums per (coflow, receiver) kept and made afresh (for tests). */
  GroupSums sums() {
    return sums;
  }

  /** Drops the pair counts and forgets, per coflow, where its flows were counted. */
  private void dropCounts() {
    counts = null;
    sums.drop();
    for (SubCoflows s : subs.values()) {
      s.forgetCounts();
    }
  }

  /**
   * The largest fabric this Creek's levels keep pair counts on ({@link LevelPairCounts#MAX_BYTES}):
   * beyond, every level is filled flow by flow, and the entry point by groups is refused.
   */
  @Override
  public int maxCountedPorts() {
    return LevelPairCounts.maxPorts(levels);
  }

  /** How the levels with flows were filled (for tests and benchmarks). */
  public FillCounts fills() {
    return fills;
  }

  public Creek(
      int levels,
      double firstThreshold,
      double multiplier,
      double starvationSeconds,
      double deltaSeconds) {
    if (levels < 1 || levels > MAX_LEVELS) {
      throw new IllegalArgumentException(
          "Creek uses 1 to " + MAX_LEVELS + " priority levels (switch queues), got " + levels);
    }
    this.levels = levels;
    this.ladder = new Thresholds(levels, firstThreshold, multiplier);
    this.members = new LevelMembers(levels);
    this.delta = deltaSeconds;
    this.starvation = starvationSeconds;
  }

  @Override
  public String name() {
    return "creek";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    int ports = state.fabric().size();
    // Counts are dense by pair: on a fabric too large for them every level goes flow by flow.
    boolean counting = keepCounts && LevelPairCounts.fits(levels, ports);
    if (groups != null && !counting) {
      throw new IllegalStateException(
          "Creek's entry point by groups needs the pair counts, which "
              + levels
              + " levels have on fabrics of up to "
              + maxCountedPorts()
              + " ports; this one has "
              + ports
              + ": simulate it flow by flow");
    }
    long p = delta > 0 ? (long) Math.floor(now / delta) : Long.MAX_VALUE;
    boolean sync = delta <= 0 || p != period;
    period = p;
    if (counting && (counts == null || counts.ports() != ports)) {
      resetCounts(ports);
    } else if (!counting && counts != null) {
      dropCounts();
    }
    subs.entrySet()
        .removeIf(
            e -> {
              if (e.getKey().unfinishedFlows() > 0) {
                return false;
              }
              e.getValue().uncountAll(counts); // a coflow that finished leaves the counts
              return true;
            });
    members.clear();
    int[] levelAt = new int[ports];
    countedLevels = 0;
    flatPorts = ports;
    if (levelOf.length < state.slots() * ports) {
      levelOf = new int[Math.max(state.slots() * ports, 2 * levelOf.length)];
      rateTo = new double[levelOf.length];
    }
    for (Coflow c : state.coflows()) {
      SubCoflows s = subs.get(c);
      if (s == null) {
        s = new SubCoflows(ports, c.arrival(), c.bytesSent());
        subs.put(c, s);
      } else {
        s.cover(ports);
        if (sync) {
          s.snapshot = c.bytesSent();
        }
      }
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        if (c.activeFlowsTo(r) == 0) {
          s.uncount(r, counts);
          continue;
        }
        if (s.servedLast[r]) {
          s.lastServed[r] = now; // served from the last decision until now
        }
        int level = ladder.level(Math.max(s.snapshot, c.receivedAt(r)));
        if (s.boost[r] > 0 && level > s.boostBase[r]) {
          s.boost[r] = 0; // demoted by bytes since the raise: the normal rule resumes
        }
        if (starvation > 0 && !s.servedLast[r]) {
          double since = Math.max(s.lastServed[r], s.boostedAt[r]);
          while (now - since >= starvation && s.boost[r] < level) {
            since += starvation;
            s.boost[r]++;
            s.boostBase[r] = level;
            s.boostedAt[r] = since;
          }
        }
        levelAt[r] = level - s.boost[r];
        levelOf[c.slot() * ports + r] = levelAt[r];
        if (counting) {
          s.recount(c, r, levelAt[r], counts);
        }
      }
      int uniform = -1;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        if (c.activeFlowsTo(r) > 0) {
          if (uniform == -1) {
            uniform = levelAt[r];
          } else if (uniform != levelAt[r]) {
            uniform = -2;
            break;
          }
        }
      }
      if (uniform >= 0) {
        members.add(uniform, 2 * c.index()); // every receiver at one level: the coflow goes whole
      } else {
        // Split: its flows take their receiver's level, one member per level it uses.
        schedule.classByReceiver(c, levelAt);
        int used = 0;
        for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
          int r = c.receiver(rs);
          if (c.activeFlowsTo(r) > 0) {
            used |= 1 << levelAt[r];
          }
        }
        for (int k = 0; k < levels; k++) {
          if ((used & (1 << k)) != 0) {
            members.add(k, 2 * c.index() + 1);
          }
        }
      }
    }
    // Same flows in the same order as one list per level, but a whole coflow that cannot move
    // costs its ports, not its flows.
    for (int k = 0; k < levels; k++) {
      if (counting && fillCounted(k, state, budget, schedule)) {
        continue;
      }
      if (members.size(k) > 0) {
        fills.byFlow++;
      }
      allocator().clearGroup();
      int[] member = members.members(k);
      for (int j = 0, n = members.size(k); j < n; j++) {
        Coflow c = state.coflows().get(member[j] >> 1);
        if ((member[j] & 1) == 0) {
          appendCoflow(c, k, schedule);
          allocator().offer(c, budget);
        } else {
          schedule.appendReceivers(c, k);
          members.bucketOnce(c, levelOf, ports);
          int[] split = members.split(c);
          for (int b = members.from(c, k), end = members.from(c, k + 1); b < end; b++) {
            int i = split[b];
            allocator().offer(c.activeIndex(i), c.activeSrc(i), c.activeDst(i), budget);
          }
        }
      }
      allocator().fillGroupByPair(budget, schedule);
      if (groups != null) {
        pairRatesFromFlows(k, state, schedule);
      }
    }
    if (groups != null) {
      groups.perFlow(Backfill.anyFlowWithSpareAtBothEnds(state, budget));
      if (!groups.perFlow()) {
        sumRatesByGroup(state, schedule);
        return;
      }
    }
    if (countedLevels != 0) {
      rateInIndexOrder(state, schedule);
    }
  }

  /**
   * The entry point by groups, for a simulator that moves the flows of one (level, sender,
   * receiver) as a group: from now on {@link #schedule} leaves the flows of the levels filled from
   * the pair counts without a rate in the schedule it returns, and the returned view gives every
   * group's rate instead. Every flow of a group has the same rate, whichever way its level is
   * filled: the rate its pair gets in the level's water-filling. The rates per (coflow, receiver)
   * that the levels and starvation clocks read are then summed from the groups (the same rates,
   * added in another order than by the schedule's flows, so the next decision time may differ in
   * its last bits). A test holds the two entry points to the same rate for every flow. The mode
   * lasts for the life of this instance: a per-flow loop needs another. A decision on a fabric too
   * large for the counts ({@link #maxCountedPorts}) is refused.
   */
  @Override
  public CreekGroups groups() {
    if (!keepCounts) {
      throw new IllegalStateException("Creek's entry point by groups needs the kept pair counts");
    }
    if (groups == null) {
      groups = new CreekGroups(this);
    }
    return groups;
  }

  /** The level of every active flow of {@code c} into {@code receiver}, at the last decision. */
  int levelOf(Coflow c, int receiver) {
    return levelOf[c.slot() * flatPorts + receiver];
  }

  /** The rate {@code c}'s active flows into {@code receiver} receive together, at the last one. */
  double rateTo(Coflow c, int receiver) {
    return rateTo[c.slot() * flatPorts + receiver];
  }

  /** The pair counts and rates of the last decision. */
  LevelPairCounts counts() {
    return counts;
  }

  /**
   * For a level filled flow by flow, the rate of each of its (sender, receiver) pairs: that of its
   * flows in the schedule (0 for a pair none of whose flows got any).
   */
  private void pairRatesFromFlows(int k, ClusterState state, Schedule schedule) {
    counts.clearRates(k);
    int[] member = members.members(k);
    for (int j = 0, n = members.size(k); j < n; j++) {
      Coflow c = state.coflows().get(member[j] >> 1);
      if ((member[j] & 1) == 0) {
        for (int i = 0, m = c.activeCount(); i < m; i++) {
          counts.setRate(k, c.activeSrc(i), c.activeDst(i), schedule.rate(c.activeIndex(i)));
        }
      } else {
        int[] split = members.split(c);
        for (int b = members.from(c, k), end = members.from(c, k + 1); b < end; b++) {
          int i = split[b];
          counts.setRate(k, c.activeSrc(i), c.activeDst(i), schedule.rate(c.activeIndex(i)));
        }
      }
    }
  }

  /**
   * {@link #ratesTo} from the group rates: per (coflow, receiver), its counted senders' pair rates
   * at its level.
   */
  private void sumRatesByGroup(ClusterState state, Schedule schedule) {
    int ports = counts.ports();
    long now = sums.start(counts, rateTo.length);
    for (Coflow c : state.coflows()) {
      SubCoflows s = subs.get(c);
      int base = c.slot() * ports;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        rateTo[base + r] = sums.sum(base + r, s, r, counts, now);
      }
    }
    ratesOf = schedule;
    ratesChanges = schedule.rateChanges();
  }

  /**
   * Water-fills level k from the kept pair counts if its flows with capacity left at both ends are
   * at least {@code 2 * ports}: the rates are then bit for bit those the level's flows get offered
   * one by one ({@link LevelPairCounts#fill}), and each flow takes its pair's. Returns false,
   * having done nothing, for a level with fewer flows (filled flow by flow: its resources rise in
   * the order its flows touch them).
   */
  private boolean fillCounted(int k, ClusterState state, PortBudget budget, Schedule schedule) {
    if (counts.keptFill(k, budget)) {
      fills.kept++;
    } else if (counts.fill(k, budget)) {
      fills.counted++;
    } else {
      return false;
    }
    countedLevels |= 1 << k;
    appendMembers(k, state, schedule);
    return true;
  }

  /** Appends the members of level k, filled from the counts, to the schedule's order. */
  private void appendMembers(int k, ClusterState state, Schedule schedule) {
    int[] member = members.members(k);
    for (int j = 0, n = members.size(k); j < n; j++) {
      Coflow c = state.coflows().get(member[j] >> 1);
      if ((member[j] & 1) == 0) {
        appendCoflow(c, k, schedule);
      } else {
        schedule.appendReceivers(c, k);
      }
    }
  }

  /** The flows {@link #rateInIndexOrder} gives a pair's rate, and those rates, in index order. */
  private int[] handFlow = new int[1024];

  private double[] handRate = new double[1024];

  /**
   * Gives every flow at a level filled from the counts its pair's rate, in index order, and sums
   * the rates per (coflow, receiver) as {@link #ratesTo} would: the served flows in index order,
   * those of the other levels with the rates they already have. The sums hold unless a rate changes
   * afterwards (the backfill), which {@link #ratesTo} checks.
   */
  private void rateInIndexOrder(ClusterState state, Schedule schedule) {
    clearRatesTo(state);
    int ports = counts.ports();
    int counted = countedLevels;
    int run = -1;
    double sum = 0;
    // The level of a run of flows into one (coflow, receiver) is looked up once per run: its pair
    // rates' base if the level was filled from the counts, -1 if its flows already have their
    // rates.
    double[] pairRates = counts.rates();
    int base = -1;
    int n = state.flows().size();
    if (handFlow.length < n) {
      handFlow = new int[Math.max(n, 2 * handFlow.length)];
      handRate = new double[handFlow.length];
    }
    int handed = 0;
    for (int i = 0; i < n; i++) {
      int dst = state.dstAt(i);
      int key = state.slotAt(i) * ports + dst;
      // Runs of flows into one (coflow, receiver) are summed in a register and stored once.
      if (key != run) {
        if (run >= 0) {
          rateTo[run] = sum;
        }
        run = key;
        sum = rateTo[key];
        int level = levelOf[key];
        base = (counted >>> level & 1) != 0 ? counts.base(level) : -1;
      }
      double rate;
      if (base >= 0) {
        rate = pairRates[base + state.srcAt(i) * ports + dst];
        if (rate <= 0) {
          continue;
        }
        handFlow[handed] = i;
        handRate[handed++] = rate;
      } else {
        rate = schedule.rate(i);
        if (rate <= 0) {
          continue;
        }
      }
      sum += rate;
    }
    if (run >= 0) {
      rateTo[run] = sum;
    }
    schedule.addRates(handFlow, handRate, handed);
    ratesOf = schedule;
    ratesChanges = schedule.rateChanges();
  }

  /** Zeroes the rate of every (coflow, receiver) of the state. */
  private void clearRatesTo(ClusterState state) {
    int ports = flatPorts;
    for (Coflow c : state.coflows()) {
      int base = c.slot() * ports;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        rateTo[base + c.receiver(rs)] = 0;
      }
    }
  }

  /** Starts the pair counts afresh for a fabric of {@code ports} ports (nothing counted). */
  private void resetCounts(int ports) {
    dropCounts();
    counts = new LevelPairCounts(levels, ports);
  }

  /**
   * Per (coflow, receiver): the rate it receives now; fills {@code rateTo} of every coflow. Called
   * from {@link #observe} and again from {@link #nextDecisionTime} for the same schedule, which is
   * computed once.
   */
  private void ratesTo(ClusterState state, Schedule schedule) {
    if (schedule == ratesOf && schedule.rateChanges() == ratesChanges) {
      return;
    }
    ratesOf = schedule;
    ratesChanges = schedule.rateChanges();
    clearRatesTo(state);
    int ports = flatPorts;
    int[] order = schedule.servedInOrder();
    // Runs of flows of one coflow into one receiver are summed in a register and stored once (the
    // same additions in the same order as adding into the array flow after flow).
    int run = -1;
    double sum = 0;
    for (int k = 0, n = schedule.servedSize(); k < n; k++) {
      int i = order[k];
      int key = state.slotAt(i) * ports + state.dstAt(i);
      if (key != run) {
        if (run >= 0) {
          rateTo[run] = sum;
        }
        run = key;
        sum = rateTo[key];
      }
      sum += schedule.rate(i);
    }
    if (run >= 0) {
      rateTo[run] = sum;
    }
  }

  @Override
  protected void observe(ClusterState state, Schedule schedule, double now) {
    ratesTo(state, schedule);
    for (Coflow c : state.coflows()) {
      SubCoflows s = subs.get(c);
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        s.servedLast[r] = rateTo[c.slot() * flatPorts + r] > 0;
        if (s.servedLast[r]) {
          s.lastServed[r] = now;
        }
      }
    }
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    ratesTo(state, schedule);
    double next = Double.POSITIVE_INFINITY;
    for (Coflow c : state.coflows()) {
      SubCoflows s = subs.get(c);
      double total = 0;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        total += rateTo[c.slot() * flatPorts + r];
      }
      int storeLevel = ladder.level(s.snapshot);
      if (total > 0 && storeLevel < levels - 1) {
        double cross = now + (ladder.upper(storeLevel) - c.bytesSent()) / total;
        next =
            Math.min(
                next,
                delta > 0
                    ? Math.max(
                        Math.ceil(cross / delta) * delta, (Math.floor(now / delta) + 1) * delta)
                    : cross);
      }
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        if (c.activeFlowsTo(r) == 0) {
          continue;
        }
        double received = c.receivedAt(r);
        double rate = rateTo[c.slot() * flatPorts + r];
        if (received >= s.snapshot) {
          next = Math.min(next, ladder.crossing(received, rate, now));
        }
        int level = ladder.level(Math.max(s.snapshot, received));
        if (starvation > 0 && rate <= 0 && s.boost[r] < level) {
          next =
              Math.min(next, Math.max(now, Math.max(s.lastServed[r], s.boostedAt[r]) + starvation));
        }
      }
    }
    return next;
  }
}
