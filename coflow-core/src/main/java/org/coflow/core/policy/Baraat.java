package org.coflow.core.policy;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.PolicyType;

/**
 * Baraat's FIFO with Limited Multiplexing (FIFO-LM, seed 004), non-clairvoyant.
 *
 * <p>Coflows (Baraat's tasks) are served in arrival order, one priority class each, strictly
 * prioritised with leftovers passed down. When a coflow becomes heavy (has sent more than the
 * threshold H) it shares its class with the coflow right after it, so small coflows behind a heavy
 * one keep moving while the heavy one is not starved.
 *
 * <p>Decisions where the paper is vague ({@code reference/seeds/004-baraat.md} §6):
 *
 * <ul>
 *   <li>Task = coflow; task id = arrival order.
 *   <li>Heaviness uses the coflow's cluster-wide bytes sent, seen immediately (the master has the
 *       global counter Baraat's switches approximate per link); once heavy, always heavy.
 *   <li>H = the {@code percentile} (default 80th, the low end of the paper's best 80-90th range) of
 *       the total sizes of coflows that completed so far in this run: "history" is what the cluster
 *       has seen, never the future. Until {@code minHistory} coflows have completed, H is {@code
 *       initialThreshold}.
 *   <li>Chaining: a class grows while its last member is heavy, so k consecutive heavy coflows and
 *       the next light one share a class (degree = heavies + 1).
 *   <li>Inside a class, flows share max-min fairly per flow (the paper's per-flow fairness).
 * </ul>
 */
public final class Baraat extends AbstractPolicy {
  private final double percentile;
  private final int minHistory;
  private final double initialThreshold;
  private final Map<Coflow, Boolean> seen = new IdentityHashMap<>();
  private double[] history = new double[64];
  private int historySize;
  private double threshold;

  /**
   * The first class's active flows counted by (sender, receiver) pair, as one level (null until a
   * first class large enough to use them, and again after the fabric changes size or no coflow is
   * active), and where each of its coflows has its flows counted.
   */
  private LevelPairCounts counts;

  private final Map<Coflow, Member> counted = new IdentityHashMap<>();
  private final RateHand hand = new RateHand();
  private long decisions;
  private boolean keepCounts = true;

  /** How the first class was filled. */
  private final FillCounts fills = new FillCounts();

  /** The entry point by pair ({@link #firstClass}), null until a simulator asks for it. */
  private FirstClass firstClass;

  public Baraat(double percentile, int minHistory, double initialThreshold) {
    if (!(percentile > 0 && percentile < 1)) {
      throw new IllegalArgumentException(
          "heavy-task percentile must be in (0, 1), got " + percentile);
    }
    this.percentile = percentile;
    this.minHistory = minHistory;
    this.initialThreshold = initialThreshold;
    this.threshold = initialThreshold;
  }

  @Override
  public String name() {
    return "baraat";
  }

  @Override
  public boolean readsCoflowTotalsOnly() {
    return true;
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  /** Whether the first class is filled from kept pair counts (tests turn it off). */
  void keepCounts(boolean on) {
    keepCounts = on;
    counts = null;
    counted.clear();
  }

  /** How the first class was filled (for tests). */
  FillCounts fills() {
    return fills;
  }

  /** The current heavy-task threshold H in bytes. */
  public double threshold() {
    return threshold;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    learnFromCompleted(state);
    List<Coflow> coflows = state.coflows();
    if (coflows.isEmpty()) {
      counted.clear(); // the finished coflows leave no flows in the counts, only references
      counts = null;
    }
    if (firstClass != null) {
      firstClass.size = 0;
    }
    int rank = 0;
    int i = 0;
    while (i < coflows.size()) {
      int from = i;
      Coflow c;
      do {
        c = coflows.get(i++);
      } while (isHeavy(c) && i < coflows.size());
      if (rank == 0 && keepCounts && fillFirstFromCounts(coflows, i, budget, schedule)) {
        rank++;
        continue;
      }
      allocator().clearGroup();
      for (int j = from; j < i; j++) {
        appendCoflow(coflows.get(j), rank, schedule);
        allocator().offer(coflows.get(j), budget);
      }
      // A chain of heavy coflows is many flows on shared (sender, receiver) pairs: water-filled by
      // pair when that halves it, with the same rates.
      allocator().fillGroupByPair(budget, schedule);
      rank++;
    }
    if (firstClass != null
        && firstClass.size > 0
        && Backfill.anyFlowWithSpareAtBothEnds(state, budget)) {
      // The backfill may top up flows of the first class one by one: their rates go in the
      // schedule (the class is already in its order), after the later classes' rates.
      handOut(coflows, firstClass.size, firstClass.rates, schedule, false);
      firstClass.size = 0;
    }
  }

  /**
   * The entry point by pair, for a simulator that moves the flows of the first class by their pair
   * rate ({@code LazyFlowSimulator}): from now on, a decision that fills the first class from the
   * pair counts leaves its flows without a rate in the schedule it returns (they stay in its
   * priority order), and the returned view gives the class and its rates by pair instead. The rates
   * are the same either way: every flow of the class gets its pair's rate, and the water-filling
   * leaves each of them a saturated end, so the backfill tops none up. A decision where some flow
   * still has spare capacity at both ends (none on the Facebook trace) puts the class's rates in
   * the schedule after all, after the later classes' rates: the same rates, but a simulator then
   * takes them in another order than from the per-flow entry point, so its sums may differ in their
   * last bits. A test holds the two entry points to the same rate for every flow. The mode lasts
   * for the life of this instance: a per-flow loop needs another.
   */
  public FirstClass firstClass() {
    if (!keepCounts) {
      throw new IllegalStateException("Baraat's entry point by pair needs the kept pair counts");
    }
    if (firstClass == null) {
      firstClass = new FirstClass();
    }
    return firstClass;
  }

  /** What one decision gives a simulator that moves the first class by pair. */
  public static final class FirstClass {
    private int size;
    private double[] rates;
    private long fills;

    private FirstClass() {}

    /**
     * How many times the rates were filled afresh: a decision that keeps the same number kept the
     * rates of the last fill, so the same class, with the same flows on the same pairs, has the
     * same rates.
     */
    public long fills() {
      return fills;
    }

    /**
     * How many coflows, the first of the state's active coflows in order, form the first class
     * filled by pair in the last decision: 0 when its flows are in the schedule, flow by flow.
     */
    public int coflows() {
      return size;
    }

    /**
     * The rate of each flow of the first class by pair key {@code sender * ports + receiver}
     * (read-only; valid until the next decision).
     */
    public double[] rates() {
      return rates;
    }
  }

  /**
   * The first class, {@code coflows[0 .. to)}, filled from its flows counted by (sender, receiver)
   * pair and kept from one decision to the next, if it has at least {@code 2 * ports} flows with
   * capacity left at both ends: the rates are then bit for bit those of offering its flows one by
   * one ({@link LevelPairCounts#fill}), and a class whose counts and budget are those of its last
   * fill keeps its rates ({@link LevelPairCounts#keptFill}). The first class is where a chain of
   * heavy coflows gathers most active flows: counted, a decision costs the flows that changed there
   * plus one pass to hand out the rates, not gathering every flow by pair again. Returns false for
   * a smaller class (having updated the counts, if it has them) and on a fabric too large for the
   * counts ({@link LevelPairCounts#fits}: more than 774 ports).
   */
  private boolean fillFirstFromCounts(
      List<Coflow> coflows, int to, PortBudget budget, Schedule schedule) {
    int ports = budget.ports();
    if (counts == null || counts.ports() != ports) {
      counted.clear();
      counts = null;
      // Counts are dense by (sender, receiver) pair: made only for a class large enough to use
      // them, and only on fabrics where they stay small (32 MiB at 774 ports).
      if (!LevelPairCounts.fits(1, ports) || activeFlows(coflows, to) < 2L * ports) {
        return false;
      }
      counts = new LevelPairCounts(1, ports);
    }
    decisions++;
    for (int j = 0; j < to; j++) {
      Coflow c = coflows.get(j);
      Member m = counted.get(c);
      if (m == null) {
        m = new Member(ports);
        counted.put(c, m);
      }
      m.decision = decisions;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        if (c.activeFlowsTo(r) == 0) {
          m.uncount(r, counts);
        } else {
          m.recount(c, r, 0, counts);
        }
      }
    }
    // Coflows that finished or left the class (a threshold that rose made them light) leave it.
    counted
        .values()
        .removeIf(
            m -> {
              if (m.decision == decisions) {
                return false;
              }
              m.uncountAll(counts);
              return true;
            });
    if (counts.keptFill(0, budget)) {
      fills.kept++;
    } else if (counts.fill(0, budget)) {
      fills.counted++;
    } else {
      return false; // filled flow by flow, which leaves the pair rates of the last fill alone
    }
    double[] rates = counts.rates(); // level 0's pairs by pair key alone
    if (firstClass != null) {
      for (int j = 0; j < to; j++) {
        appendCoflow(coflows.get(j), 0, schedule);
      }
      firstClass.size = to;
      firstClass.rates = rates;
      firstClass.fills = fills.counted;
    } else {
      handOut(coflows, to, rates, schedule, true);
    }
    return true;
  }

  /**
   * Gives every flow of {@code coflows[0 .. to)} its pair's rate, listing the coflows in class 0
   * first if {@code list}.
   */
  private void handOut(
      List<Coflow> coflows, int to, double[] rates, Schedule schedule, boolean list) {
    int ports = counts.ports();
    for (int j = 0; j < to; j++) {
      Coflow c = coflows.get(j);
      if (list) {
        appendCoflow(c, 0, schedule);
      }
      int n = c.activeCount();
      hand.ensure(n);
      for (int k = 0; k < n; k++) {
        hand.flow[k] = c.activeIndex(k);
        hand.rate[k] = rates[c.activeSrc(k) * ports + c.activeDst(k)];
      }
      schedule.addRates(hand.flow, hand.rate, n);
    }
  }

  private static long activeFlows(List<Coflow> coflows, int to) {
    long n = 0;
    for (int j = 0; j < to; j++) {
      n += coflows.get(j).activeCount();
    }
    return n;
  }

  /** Where a coflow of the first class has its flows counted, and the decision it was last in. */
  private static final class Member extends CountedFlows {
    long decision;

    Member(int ports) {
      super(ports);
    }
  }

  private boolean isHeavy(Coflow c) {
    return c.bytesSent() > threshold;
  }

  private void learnFromCompleted(ClusterState state) {
    boolean changed = false;
    for (var it = seen.keySet().iterator(); it.hasNext(); ) {
      Coflow c = it.next();
      if (c.unfinishedFlows() == 0) {
        it.remove();
        if (historySize == history.length) {
          history = Arrays.copyOf(history, 2 * historySize);
        }
        history[historySize++] = c.totalBytes();
        changed = true;
      }
    }
    for (Coflow c : state.coflows()) {
      seen.putIfAbsent(c, Boolean.TRUE);
    }
    if (changed && historySize >= minHistory) {
      double[] sorted = Arrays.copyOf(history, historySize);
      Arrays.sort(sorted);
      int k = (int) Math.ceil(percentile * historySize) - 1;
      threshold = sorted[Math.max(0, Math.min(historySize - 1, k))];
    }
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    double[] rates = schedule.coflowRates(state);
    double next = Double.POSITIVE_INFINITY;
    for (Coflow c : state.coflows()) {
      if (!isHeavy(c)) {
        double rate = rates[c.index()];
        if (rate > 0) {
          // Just past H, so that the strict comparison sees the coflow as heavy.
          next = Math.min(next, now + (threshold - c.bytesSent()) / rate * (1 + 1e-12) + 1e-9);
        }
      }
    }
    return next;
  }
}
