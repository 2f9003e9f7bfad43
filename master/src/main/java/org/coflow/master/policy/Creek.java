package org.coflow.master.policy;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.PolicyType;

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
public final class Creek extends AbstractPolicy {
  /** The most priority levels Creek takes (switch queues). */
  public static final int MAX_LEVELS = 8;

  private final int levels;
  private final Thresholds ladder;
  private final double delta;
  private final double starvation;
  private final Map<Coflow, SubCoflows> subs = new IdentityHashMap<>();
  private long period = Long.MIN_VALUE;

  /**
   * Per level, its members in arrival order: {@code 2 * coflow index} for a whole coflow, {@code 2
   * * coflow index + 1} for the flows of a coflow split over levels whose receivers are at this
   * level (plain ints: the per-event loops never touch flow objects).
   */
  private int[][] byLevel;

  private int[] levelSize;

  private Schedule ratesOf;

  /** Flows of the coflows split over levels, grouped by level: see {@link #bucket}. */
  private int[] splitFlows = new int[1024];

  private int[] splitFrom = new int[64];

  /** The decision under way (numbered) and, by coflow index, the one its flows were bucketed in. */
  private int decision;

  private int[] bucketedIn = new int[64];
  private int bucketed;

  /**
   * Per level, the active flows counted by (sender, receiver) pair, kept from one decision to the
   * next: {@code pairCount[k][sender * countedPorts + receiver]}, with the pairs counted at level k
   * listed in {@code pairKeys[k][0 .. pairsAt[k])} and {@code pairSlot[k][key]} the position + 1 of
   * a key in that list (0 when not listed). A (coflow, receiver) recounts its flows only when its
   * level or its flows change, so a level with many flows is water-filled at the cost of its pairs,
   * not its flows ({@link #fillCounted}).
   */
  private int countedPorts = -1;

  private int[][] pairCount;
  private int[][] pairSlot;
  private int[][] pairKeys;
  private int[] pairsAt;

  /**
   * Per level filled from the counts ({@code countedLevels}, a bit per level), by pair key: the
   * rate of each of its flows, handed to them in index order once every level is filled ({@link
   * #rateInIndexOrder}).
   */
  private double[][] pairRate;

  private int countedLevels;

  /**
   * Per level, what its last fill from the counts started from and left: the version its counts had
   * ({@link #count} moves it on), the budget it found and the budget it left. A level whose counts
   * and budget are those of its last fill would get the same rates (a fill is a function of them),
   * so it keeps them and takes what it took then ({@link #keptFill}). A level filled flow by flow
   * since ({@link #pairRatesFromFlows}) has other rates: {@code filledKept} is then false.
   */
  private int[] countsVersion;

  private int[] filledVersion;
  private double[][] filledFrom;
  private double[][] filledLeft;
  private boolean[] filledKept;
  private long keptFills;

  /**
   * By {@code slot * flatPorts + receiver} ({@link Coflow#slot}): the level of each (coflow,
   * receiver) with active flows at the last decision, and the rate it receives. Flat arrays keyed
   * by the state's per-flow slots, so that passes over the flows in index order never dereference a
   * coflow.
   */
  private int[] levelOf = new int[0];

  private double[] rateTo = new double[0];
  private int flatPorts;

  /** The rate changes {@link #ratesOf} had when its rates per receiver were summed. */
  private long ratesChanges;

  private int[] fillSrc = new int[64];
  private int[] fillDst = new int[64];
  private int[] fillCount = new int[64];
  private double[] fillRate = new double[64];

  /** False (tests only) to fill every level flow by flow, as a check of the kept counts. */
  private boolean keepCounts = true;

  /** The entry point by groups is on ({@link #groups}): no per-flow rates at counted levels. */
  private Groups groups;

  private long countedFills;
  private long flowFills;

  /** Whether levels with many flows are filled from the kept pair counts (tests turn it off). */
  void keepCounts(boolean on) {
    if (!on && groups != null) {
      throw new IllegalStateException("Creek's entry point by groups needs the kept pair counts");
    }
    keepCounts = on;
    countedPorts = -1;
  }

  /** How many levels were filled from the kept pair counts (for tests and benchmarks). */
  public long countedFills() {
    return countedFills;
  }

  /**
   * How many levels kept the rates of their last fill from the counts (for tests and benchmarks).
   */
  public long keptFills() {
    return keptFills;
  }

  /** How many levels with flows were filled flow by flow (for tests and benchmarks). */
  public long flowFills() {
    return flowFills;
  }

  /** The store's snapshot of one coflow and, per receiver port, service and boost state. */
  private static final class SubCoflows {
    double snapshot;
    private final double arrival;
    double[] lastServed = new double[0];
    boolean[] servedLast = new boolean[0];

    /** Levels a starving receiver raised the coflow by, the byte level then, and when. */
    int[] boost = new int[0];

    int[] boostBase = new int[0];
    double[] boostedAt = new double[0];

    /**
     * Per receiver port: the level + 1 its active flows are counted at in the pair counts (0: not
     * counted), how many, from which senders, and the coflow's {@link Coflow#changesTo} then.
     */
    int[] countedAt = new int[0];

    int[] countedN = new int[0];
    int[] countedChanges = new int[0];
    int[][] countedFrom = new int[0][];

    SubCoflows(int ports, double arrival, double snapshot) {
      this.snapshot = snapshot;
      this.arrival = arrival;
      cover(ports);
    }

    /**
     * Sizes the per-port state to the fabric, which in the live master grows as hosts join: a
     * coflow may gain receivers on ports that did not exist when it arrived.
     */
    void cover(int ports) {
      int had = lastServed.length;
      if (ports <= had) {
        return;
      }
      lastServed = Arrays.copyOf(lastServed, ports);
      servedLast = Arrays.copyOf(servedLast, ports);
      boost = Arrays.copyOf(boost, ports);
      boostBase = Arrays.copyOf(boostBase, ports);
      boostedAt = Arrays.copyOf(boostedAt, ports);
      countedAt = Arrays.copyOf(countedAt, ports);
      countedN = Arrays.copyOf(countedN, ports);
      countedChanges = Arrays.copyOf(countedChanges, ports);
      countedFrom = Arrays.copyOf(countedFrom, ports);
      Arrays.fill(lastServed, had, ports, arrival);
      Arrays.fill(boostedAt, had, ports, Double.NEGATIVE_INFINITY);
    }
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
    this.byLevel = new int[levels][64];
    this.levelSize = new int[levels];
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

  private void addMember(int level, int member) {
    int n = levelSize[level];
    if (n == byLevel[level].length) {
      byLevel[level] = java.util.Arrays.copyOf(byLevel[level], 2 * n);
    }
    byLevel[level][n] = member;
    levelSize[level] = n + 1;
  }

  private int levelFor(double bytes) {
    return ladder.level(bytes);
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    int ports = state.fabric().size();
    long p = delta > 0 ? (long) Math.floor(now / delta) : Long.MAX_VALUE;
    boolean sync = delta <= 0 || p != period;
    period = p;
    if (keepCounts && countedPorts != ports) {
      resetCounts(ports);
    }
    subs.entrySet()
        .removeIf(
            e -> {
              if (e.getKey().unfinishedFlows() > 0) {
                return false;
              }
              SubCoflows s = e.getValue();
              for (int r = 0; r < s.countedAt.length; r++) {
                uncount(s, r); // a coflow that finished leaves the counts
              }
              return true;
            });
    java.util.Arrays.fill(levelSize, 0);
    int[] levelAt = new int[ports];
    int stride = levels + 1;
    if (splitFrom.length < state.coflows().size() * stride) {
      splitFrom = new int[Math.max(state.coflows().size() * stride, 2 * splitFrom.length)];
    }
    if (bucketedIn.length < state.coflows().size()) {
      bucketedIn = new int[Math.max(state.coflows().size(), 2 * bucketedIn.length)];
    }
    decision++;
    bucketed = 0;
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
          uncount(s, r);
          continue;
        }
        if (s.servedLast[r]) {
          s.lastServed[r] = now; // served from the last decision until now
        }
        int level = levelFor(Math.max(s.snapshot, c.receivedAt(r)));
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
        if (keepCounts) {
          recount(c, s, r, levelAt[r]);
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
        addMember(uniform, 2 * c.index()); // every receiver at one level: the coflow goes whole
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
            addMember(k, 2 * c.index() + 1);
          }
        }
      }
    }
    // Same flows in the same order as one list per level, but a whole coflow that cannot move
    // costs its ports, not its flows.
    for (int k = 0; k < levels; k++) {
      if (keepCounts && fillCounted(k, state, budget, schedule)) {
        continue;
      }
      if (levelSize[k] > 0) {
        flowFills++;
      }
      allocator().clearGroup();
      int[] members = byLevel[k];
      for (int j = 0, n = levelSize[k]; j < n; j++) {
        Coflow c = state.coflows().get(members[j] >> 1);
        if ((members[j] & 1) == 0) {
          appendCoflow(c, k, schedule);
          allocator().offer(c, budget);
        } else {
          schedule.appendReceivers(c, k);
          bucketOnce(c);
          int at = c.index() * stride + k;
          for (int b = splitFrom[at], end = splitFrom[at + 1]; b < end; b++) {
            int i = splitFlows[b];
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
      groups.perFlow = Backfill.anyFlowWithSpareAtBothEnds(state, budget);
      if (!groups.perFlow) {
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
   * receiver) as a group ({@code LevelPairSimulator}): from now on {@link #schedule} leaves the
   * flows of the levels filled from the pair counts without a rate in the schedule it returns, and
   * the returned view gives every group's rate instead. Every flow of a group has the same rate,
   * whichever way its level is filled: the rate its pair gets in the level's water-filling. The
   * rates per (coflow, receiver) that the levels and starvation clocks read are then summed from
   * the groups (the same rates, added in another order than by the schedule's flows, so the next
   * decision time may differ in its last bits). A test holds the two entry points to the same rate
   * for every flow. The mode lasts for the life of this instance: a per-flow loop needs another.
   */
  public Groups groups() {
    if (!keepCounts) {
      throw new IllegalStateException("Creek's entry point by groups needs the kept pair counts");
    }
    if (groups == null) {
      groups = new Groups();
    }
    return groups;
  }

  /** What one decision gives a simulator that moves flows by (level, sender, receiver) group. */
  public final class Groups {
    private boolean perFlow;

    private Groups() {}

    /** The level of every active flow of {@code c} into {@code receiver} (0 is served first). */
    public int levelOf(Coflow c, int receiver) {
      return levelOf[c.slot() * flatPorts + receiver];
    }

    /** The rate of each flow of the group at {@code level} from {@code src} to {@code dst}. */
    public double rate(int level, int src, int dst) {
      return pairRate[level][src * countedPorts + dst];
    }

    /** The rate {@code c}'s active flows into {@code receiver} receive together. */
    public double rateTo(Coflow c, int receiver) {
      return rateTo[c.slot() * flatPorts + receiver];
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
  }

  /**
   * For a level filled flow by flow, the rate of each of its (sender, receiver) pairs: that of its
   * flows in the schedule (0 for a pair none of whose flows got any).
   */
  private void pairRatesFromFlows(int k, ClusterState state, Schedule schedule) {
    int ports = countedPorts;
    double[] rates = pairRate[k];
    int[] keys = pairKeys[k];
    filledKept[k] = false;
    for (int j = 0, m = pairsAt[k]; j < m; j++) {
      rates[keys[j]] = 0;
    }
    int stride = levels + 1;
    int[] members = byLevel[k];
    for (int j = 0, n = levelSize[k]; j < n; j++) {
      Coflow c = state.coflows().get(members[j] >> 1);
      if ((members[j] & 1) == 0) {
        for (int i = 0, m = c.activeCount(); i < m; i++) {
          rates[c.activeSrc(i) * ports + c.activeDst(i)] = schedule.rate(c.activeIndex(i));
        }
      } else {
        int at = c.index() * stride + k;
        for (int b = splitFrom[at], end = splitFrom[at + 1]; b < end; b++) {
          int i = splitFlows[b];
          rates[c.activeSrc(i) * ports + c.activeDst(i)] = schedule.rate(c.activeIndex(i));
        }
      }
    }
  }

  /**
   * {@link #ratesTo} from the group rates: per (coflow, receiver), its counted senders' pair rates
   * at its level.
   */
  private void sumRatesByGroup(ClusterState state, Schedule schedule) {
    int ports = countedPorts;
    for (Coflow c : state.coflows()) {
      SubCoflows s = subs.get(c);
      int base = c.slot() * ports;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        double sum = 0;
        int at = s.countedAt[r] - 1;
        if (at >= 0) {
          double[] rates = pairRate[at];
          int[] from = s.countedFrom[r];
          for (int i = 0, n = s.countedN[r]; i < n; i++) {
            sum += rates[from[i] * ports + r];
          }
        }
        rateTo[base + r] = sum;
      }
    }
    ratesOf = schedule;
    ratesChanges = schedule.rateChanges();
  }

  /**
   * Water-fills level k from the kept pair counts if its flows with capacity left at both ends are
   * at least {@code 2 * ports}: the rates are then bit for bit those the level's flows get offered
   * one by one ({@link Allocator#fillPairs(int[], int[], int[], int, PortBudget, double[],
   * boolean)}), and each flow takes its pair's. Returns false, having done nothing, for a level
   * with fewer flows (filled flow by flow: its resources rise in the order its flows touch them).
   */
  private boolean fillCounted(int k, ClusterState state, PortBudget budget, Schedule schedule) {
    int m = pairsAt[k];
    int ports = countedPorts;
    if (fillSrc.length < m) {
      int len = Math.max(m, 2 * fillSrc.length);
      fillSrc = new int[len];
      fillDst = new int[len];
      fillCount = new int[len];
      fillRate = new double[len];
    }
    if (keptFill(k, budget)) {
      appendMembers(k, state, schedule);
      return true;
    }
    int[] keys = pairKeys[k];
    int[] count = pairCount[k];
    long flows = 0;
    for (int j = 0; j < m; j++) {
      int key = keys[j];
      int src = key / ports;
      int dst = key - src * ports;
      fillSrc[j] = src;
      fillDst[j] = dst;
      fillCount[j] = count[key];
      if (budget.available(src, dst) > PortBudget.EPS) {
        flows += count[key];
      }
    }
    if (flows < 2L * ports) {
      return false;
    }
    countedFills++;
    countedLevels |= 1 << k;
    double[] residual = budget.residual;
    System.arraycopy(residual, 0, filledFrom[k], 0, residual.length);
    allocator().fillPairs(fillSrc, fillDst, fillCount, m, budget, fillRate, true);
    double[] rates = pairRate[k];
    for (int j = 0; j < m; j++) {
      rates[keys[j]] = fillRate[j];
    }
    System.arraycopy(residual, 0, filledLeft[k], 0, residual.length);
    filledVersion[k] = countsVersion[k];
    filledKept[k] = true;
    appendMembers(k, state, schedule);
    return true;
  }

  /**
   * Whether level k's counts and the budget it finds are those of its last fill from the counts:
   * its pair rates are then still those of that fill, and the budget takes what that fill took.
   */
  private boolean keptFill(int k, PortBudget budget) {
    double[] residual = budget.residual;
    if (!filledKept[k]
        || filledVersion[k] != countsVersion[k]
        || !Arrays.equals(filledFrom[k], residual)) {
      return false;
    }
    System.arraycopy(filledLeft[k], 0, residual, 0, residual.length);
    keptFills++;
    countedLevels |= 1 << k;
    return true;
  }

  /** Appends the members of level k, filled from the counts, to the schedule's order. */
  private void appendMembers(int k, ClusterState state, Schedule schedule) {
    int[] members = byLevel[k];
    for (int j = 0, n = levelSize[k]; j < n; j++) {
      Coflow c = state.coflows().get(members[j] >> 1);
      if ((members[j] & 1) == 0) {
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
    int ports = countedPorts;
    int counted = countedLevels;
    int run = -1;
    double sum = 0;
    // The level of a run of flows into one (coflow, receiver) is looked up once per run: its pair
    // rates if the level was filled from the counts, null if its flows already have their rates.
    double[] pairRates = null;
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
        pairRates = (counted >>> level & 1) != 0 ? pairRate[level] : null;
      }
      double rate;
      if (pairRates != null) {
        rate = pairRates[state.srcAt(i) * ports + dst];
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
    countedPorts = ports;
    int pairs = ports * ports;
    pairCount = new int[levels][pairs];
    pairSlot = new int[levels][pairs];
    pairKeys = new int[levels][64];
    pairsAt = new int[levels];
    pairRate = new double[levels][pairs];
    countsVersion = new int[levels];
    filledVersion = new int[levels];
    filledFrom = new double[levels][2 * ports];
    filledLeft = new double[levels][2 * ports];
    filledKept = new boolean[levels];
    for (SubCoflows s : subs.values()) {
      Arrays.fill(s.countedAt, 0);
      Arrays.fill(s.countedN, 0);
    }
  }

  /** Counts the active flows of (c, r) at {@code level}, unless they are counted there already. */
  private void recount(Coflow c, SubCoflows s, int r, int level) {
    int changes = c.changesTo(r);
    if (s.countedAt[r] == level + 1 && s.countedChanges[r] == changes) {
      return;
    }
    uncount(s, r);
    int n = c.activeFlowsTo(r);
    int[] from = s.countedFrom[r];
    if (from == null || from.length < n) {
      from = new int[n];
      s.countedFrom[r] = from;
    }
    int[] positions = c.activePositionsTo(r);
    for (int i = 0; i < n; i++) {
      int src = c.activeSrc(positions[i]);
      from[i] = src;
      count(level, src * countedPorts + r, 1);
    }
    s.countedAt[r] = level + 1;
    s.countedN[r] = n;
    s.countedChanges[r] = changes;
  }

  /** Takes the flows of (c, r) out of the pair counts, if they are in. */
  private void uncount(SubCoflows s, int r) {
    int at = s.countedAt[r] - 1;
    if (at < 0) {
      return;
    }
    int[] from = s.countedFrom[r];
    for (int i = 0, n = s.countedN[r]; i < n; i++) {
      count(at, from[i] * countedPorts + r, -1);
    }
    s.countedAt[r] = 0;
    s.countedN[r] = 0;
  }

  /** Adds {@code delta} (1 or -1) flows to pair {@code key} at {@code level}. */
  private void count(int level, int key, int delta) {
    int[] counts = pairCount[level];
    countsVersion[level]++;
    int was = counts[key];
    counts[key] = was + delta;
    int[] slot = pairSlot[level];
    int[] keys = pairKeys[level];
    if (was == 0) {
      int n = pairsAt[level];
      if (n == keys.length) {
        keys = Arrays.copyOf(keys, 2 * n);
        pairKeys[level] = keys;
      }
      keys[n] = key;
      slot[key] = n + 1;
      pairsAt[level] = n + 1;
    } else if (was + delta == 0) {
      int j = slot[key] - 1;
      int last = keys[--pairsAt[level]];
      keys[j] = last;
      slot[last] = j + 1;
      slot[key] = 0;
    }
  }

  /** {@link #bucket} of a coflow split over levels, once per decision. */
  private void bucketOnce(Coflow c) {
    if (bucketedIn[c.index()] != decision) {
      bucketedIn[c.index()] = decision;
      bucketed = bucket(c, c.index() * (levels + 1), bucketed);
    }
  }

  /**
   * Lists the active flows of a coflow split over levels by level, each level's in the coflow's
   * active order (the order a pass over all its flows per level would offer them in), so that every
   * level costs its own flows: {@code splitFlows[splitFrom[at + k] .. splitFrom[at + k + 1])} are
   * the positions of its flows at level k. Appends from {@code next}; returns the new end.
   */
  private int bucket(Coflow c, int at, int next) {
    int n = c.activeCount();
    int base = c.slot() * flatPorts;
    if (splitFlows.length < next + n) {
      splitFlows = Arrays.copyOf(splitFlows, Math.max(next + n, 2 * splitFlows.length));
    }
    int[] fill = new int[levels + 1];
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int r = c.receiver(rs);
      if (c.activeFlowsTo(r) > 0) {
        fill[levelOf[base + r] + 1] += c.activeFlowsTo(r);
      }
    }
    fill[0] = next;
    for (int k = 0; k < levels; k++) {
      fill[k + 1] += fill[k];
      splitFrom[at + k] = fill[k];
    }
    splitFrom[at + levels] = fill[levels];
    for (int i = 0; i < n; i++) {
      splitFlows[fill[levelOf[base + c.activeDst(i)]]++] = i;
    }
    return next + n;
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
      int storeLevel = levelFor(s.snapshot);
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
        int level = levelFor(Math.max(s.snapshot, received));
        if (starvation > 0 && rate <= 0 && s.boost[r] < level) {
          next =
              Math.min(next, Math.max(now, Math.max(s.lastServed[r], s.boostedAt[r]) + starvation));
        }
      }
    }
    return next;
  }
}
