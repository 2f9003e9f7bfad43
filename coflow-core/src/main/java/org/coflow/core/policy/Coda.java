package org.coflow.core.policy;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;
import org.coflow.core.model.PolicyType;

/**
 * CODA's error-tolerant scheduler (seed 002, Algorithm 2): D-CLAS between coflows (as {@link Aalo},
 * strict priority across queues, FIFO inside a queue), and inside each coflow a multi-level
 * feedback queue over its flows by bytes sent (smallest-first without knowing sizes), flows of one
 * flow-queue sharing max-min fairly.
 *
 * <p>Late binding (Algorithm 2's CoflowExtension), when the coflows were identified and a {@link
 * CoflowExtension} is attached: each coflow is extended by the flows of other coflows within the
 * diameter d of it, so a boundary flow is a candidate of several coflows. It is scheduled by the
 * highest-priority candidate (candidates are served in priority order and a flow is taken once per
 * round), and the first time a candidate gives it a rate it is bound to that candidate for good:
 * from then on only that coflow schedules it. Until then it is re-examined every round. Its bytes
 * keep counting towards its identified coflow's D-CLAS queue (the only coflow the agents' counters
 * know of).
 *
 * <p>Decisions: the paper gives no D-CLAS parameters, so they are Aalo's (10 queues, 10 MiB, x10,
 * Δ); the flow queues are {@code flowQueues} levels starting at {@code flowFirstThreshold} (default
 * 1 MiB) with x10 spacing, since the paper says only "exponentially increasing". A flow's bytes are
 * known to its own agent, so flow levels use live counts (no Δ).
 */
public class Coda extends AbstractPolicy {
  private final QueueTracker queues;
  private final Thresholds flowLevels;
  private CoflowExtension extension;
  private final double diameter;

  /** Boundary flows bound to the candidate that first served them (late binding). */
  private final java.util.Map<Flow, Coflow> binding = new java.util.IdentityHashMap<>();

  /**
   * @param diameter late binding's d, in the identification metric's units; 0 turns late binding
   *     off (it also needs an extension, see {@link #lateBinding})
   */
  public Coda(
      int queues,
      double firstThreshold,
      double multiplier,
      double deltaSeconds,
      int flowQueues,
      double flowFirstThreshold,
      double flowMultiplier,
      double diameter) {
    this.queues = new QueueTracker(queues, firstThreshold, multiplier, deltaSeconds);
    this.flowLevels = new Thresholds(flowQueues, flowFirstThreshold, flowMultiplier);
    this.scratch = new FlowLevels(flowQueues);
    this.diameter = diameter;
  }

  /**
   * Gives late binding the identifier's {@code extension} (null: none, as for true coflows). It
   * acts only with a positive diameter.
   */
  public void lateBinding(CoflowExtension extension) {
    this.extension = diameter > 0 ? extension : null;
    binding.clear();
  }

  @Override
  public String name() {
    return "coda";
  }

  @Override
  public PolicyType type() {
    return PolicyType.RATE;
  }

  private int flowLevel(Flow f) {
    return flowLevels.level(f.sent());
  }

  /**
   * A coflow as the scheduler treats it: an identified coflow plus, with late binding, the flows
   * within the extension diameter of it ({@code extra}, empty for true coflows).
   */
  protected static final class Candidate {
    private final Coflow coflow;
    private final List<Flow> extra;

    protected Candidate(Coflow coflow, List<Flow> extra) {
      this.coflow = coflow;
      this.extra = extra;
    }

    public Coflow coflow() {
      return coflow;
    }

    public List<Flow> extra() {
      return extra;
    }
  }

  /**
   * Coflows in inter-coflow priority order (D-CLAS queues, FIFO inside each), each extended by late
   * binding when it is on.
   */
  protected List<Candidate> coflowsInPriorityOrder(ClusterState state, double now) {
    queues.refresh(state, now);
    List<Flow>[] extra = extension == null ? null : extension.extend(state, diameter);
    List<Candidate> ordered = new ArrayList<>();
    for (int q = 0; q < queues.queues(); q++) {
      for (Coflow c : state.coflows()) {
        if (queues.queue(c) == q) {
          List<Flow> more =
              extra == null || extra[c.index()] == null ? List.of() : extra[c.index()];
          ordered.add(new Candidate(c, more));
        }
      }
    }
    return ordered;
  }

  @Override
  protected void allocate(ClusterState state, double now, PortBudget budget, Schedule schedule) {
    decisions++;
    List<Candidate> candidates = coflowsInPriorityOrder(state, now);
    binding.entrySet().removeIf(e -> e.getKey().finished() || e.getValue().index() < 0);
    java.util.Map<Coflow, List<Flow>> adopted = new java.util.IdentityHashMap<>();
    binding.forEach(
        (f, owner) -> {
          if (owner != f.coflow()) {
            adopted.computeIfAbsent(owner, o -> new ArrayList<>()).add(f);
          }
        });
    // Coflows late binding touches: extended ones, and those owning a flow that is in an
    // extension or bound. The others are scheduled exactly as without late binding.
    java.util.Set<Coflow> contested =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (Candidate cand : candidates) {
      if (!cand.extra().isEmpty()) {
        contested.add(cand.coflow());
        for (Flow f : cand.extra()) {
          contested.add(f.coflow());
        }
      }
    }
    binding.forEach(
        (f, owner) -> {
          contested.add(f.coflow());
          contested.add(owner);
        });
    boolean extended = !contested.isEmpty();
    // Only late binding needs to know which flows a candidate already took.
    boolean[] bound = extended ? new boolean[state.flows().size()] : null;
    java.util.Map<Flow, Coflow> servedBy = extended ? new java.util.IdentityHashMap<>() : null;
    List<List<Flow>> levels = new ArrayList<>(flowLevels.levels());
    for (int j = 0; j < flowLevels.levels(); j++) {
      levels.add(new ArrayList<>());
    }
    int rank = 0;
    for (Candidate cand : candidates) {
      if (!contested.contains(cand.coflow()) && !Allocator.mayTake(cand.coflow(), budget)) {
        // Nothing of it can move: its flows' order among themselves cannot change any rate.
        appendCoflow(cand.coflow(), rank, schedule);
        rank += flowLevels.levels();
        continue;
      }
      Coflow c = cand.coflow();
      if (!extended) {
        // No late binding anywhere: the coflow's own flows, read from arrays.
        rank = allocateOwn(c, rank, now, budget, schedule);
        continue;
      }
      for (List<Flow> level : levels) {
        level.clear();
      }
      for (List<Flow> part :
          List.of(c.activeFlows(), adopted.getOrDefault(c, List.of()), cand.extra())) {
        for (Flow f : part) {
          Coflow owner = extended ? binding.get(f) : null;
          if (!bound[f.index()] && (owner == null || owner == c)) {
            bound[f.index()] = true;
            levels.get(flowLevel(f)).add(f);
            if (extended && owner == null && part == cand.extra()) {
              servedBy.put(f, c);
            }
          }
        }
      }
      for (List<Flow> level : levels) {
        for (Flow f : level) {
          schedule.append(f.index(), rank);
        }
        allocator().maxMinFair(level, budget, schedule);
        rank++;
      }
    }
    if (extended) {
      // A boundary flow is bound the first time a candidate gives it a rate: an extension's flow
      // to the extended coflow, and a flow of an extended-into coflow to its own (it stays out of
      // the others' extensions from now on).
      for (Candidate cand : candidates) {
        for (Flow f : cand.extra()) {
          if (!binding.containsKey(f) && schedule.rate(f.index()) > 0) {
            binding.put(f, servedBy.getOrDefault(f, f.coflow()));
          }
        }
      }
    }
  }

  /**
   * A coflow without late binding: its active flows by intra-coflow level (in their order), each
   * level one priority class, max-min fair inside it. Returns the next free class.
   */
  private int allocateOwn(Coflow c, int rank, double now, PortBudget budget, Schedule schedule) {
    int levels = flowLevels.levels();
    FlowLevels at = levelsOf(c, now);
    Allocator allocator = allocator();
    if (at.uniform) {
      // Every flow at one level (the usual case: a coflow's flows into a reducer are alike): the
      // coflow goes whole, in its order, and its max-min step can be replayed.
      appendCoflow(c, rank + at.level, schedule);
      allocator.maxMinFair(c, budget, schedule);
      return rank + levels;
    }
    for (int j = 0; j < levels; j++) {
      schedule.appendPositions(c, at.byLevel, at.levelStart[j], at.levelStart[j + 1], rank + j);
    }
    // Each level max-min fair in what the levels before it left; replayed when the coflow's flows,
    // their levels and the residuals at its ports are those of its last split step.
    allocator.maxMinByGroups(c, at.levelOf, at.byLevel, at.levelStart, levels, budget, schedule);
    return rank + levels;
  }

  /**
   * The intra-coflow levels of a coflow's active flows, by position. A flow's level changes only
   * when its bytes sent pass a threshold: under {@link #movesAsDecided}, the levels of the last
   * decision are kept while its flows are the same and none of them can have passed its level's
   * threshold at the rates that decision gave ({@link #nextDecisionTime} works out until when).
   */
  private FlowLevels levelsOf(Coflow c, double now) {
    FlowLevels at = kept == null ? null : kept.get(c);
    if (at != null && at.changes == c.activeChanges() && now < at.until) {
      keptLevels++;
      at.decidedIn = decisions;
      return at;
    }
    if (kept == null) {
      at = scratch;
    } else if (at == null) {
      at = new FlowLevels(flowLevels.levels());
      kept.put(c, at);
    }
    at.count(c, flowLevels);
    at.changes = c.activeChanges();
    at.decidedIn = decisions;
    // Not valid for a later decision until nextDecisionTime knows the rates this one gives.
    at.until = now;
    return at;
  }

  /** The levels of one coflow's active flows at a decision ({@link #levelsOf}). */
  private static final class FlowLevels {
    long changes;

    /** The decision ({@link #decisions}) that last used these levels. */
    long decidedIn;

    /** The levels hold for a decision before this time (see {@link #levelsOf}). */
    double until = Double.NEGATIVE_INFINITY;

    boolean uniform;
    int level;

    /** Per position, its level. */
    int[] levelOf = new int[16];

    /** The positions by level, each level in the coflow's order, level j from levelStart[j]. */
    int[] byLevel = new int[16];

    final int[] levelStart;
    private final int[] cursor;

    FlowLevels(int levels) {
      levelStart = new int[levels + 1];
      cursor = new int[levels];
    }

    /** Works the levels out from the flows' bytes sent. */
    void count(Coflow c, Thresholds thresholds) {
      int levels = cursor.length;
      int n = c.activeCount();
      if (levelOf.length < n) {
        levelOf = new int[Math.max(n, 2 * levelOf.length)];
      }
      java.util.Arrays.fill(levelStart, 0);
      for (int k = 0; k < n; k++) {
        int q = thresholds.level(c.activeSent(k));
        levelOf[k] = q;
        levelStart[q + 1]++;
      }
      uniform = n > 0 && levelStart[levelOf[0] + 1] == n;
      level = n > 0 ? levelOf[0] : 0;
      if (uniform) {
        return;
      }
      // The flows by level, each level in the coflow's order (a counting sort, one pass).
      for (int j = 0; j < levels; j++) {
        levelStart[j + 1] += levelStart[j];
      }
      if (byLevel.length < n) {
        byLevel = new int[Math.max(n, 2 * byLevel.length)];
      }
      System.arraycopy(levelStart, 0, cursor, 0, levels);
      for (int k = 0; k < n; k++) {
        byLevel[cursor[levelOf[k]]++] = k;
      }
    }
  }

  private final FlowLevels scratch;

  /** Per coflow, the levels of its flows at the last decision: only under movesAsDecided. */
  private java.util.IdentityHashMap<Coflow, FlowLevels> kept;

  private long keptLevels;

  /** Decisions taken so far: which one a coflow's levels were last used at, even at equal times. */
  private long decisions;

  /** Per coflow slot, the earliest time a flow of it may pass its level's threshold. */
  private double[] safeBySlot = new double[0];

  @Override
  public void movesAsDecided() {
    if (kept == null) {
      kept = new java.util.IdentityHashMap<>();
    }
  }

  /** How many times a coflow's flow levels were kept from the decision before (for tests). */
  long keptLevels() {
    return keptLevels;
  }

  @Override
  public double nextDecisionTime(ClusterState state, Schedule schedule, double now) {
    double[] rates = schedule.coflowRates(state);
    double next = Double.POSITIVE_INFINITY;
    for (Coflow c : state.coflows()) {
      next = Math.min(next, queues.nextDemotion(c, rates[c.index()], now));
    }
    if (kept == null) {
      int[] served = schedule.served();
      for (int k = 0, n = schedule.servedSize(); k < n; k++) {
        int i = served[k];
        next = Math.min(next, flowLevels.crossing(state.sentAt(i), schedule.rate(i), now));
      }
      return next;
    }
    if (safeBySlot.length < state.slots()) {
      safeBySlot = new double[Math.max(state.slots(), 2 * safeBySlot.length)];
    }
    for (Coflow c : state.coflows()) {
      safeBySlot[c.slot()] = Double.POSITIVE_INFINITY;
    }
    // Each flow's level is found once, for its crossing (as flowLevels.crossing) and for a time
    // before which it surely stays in its level: a millionth of the time to its threshold and a
    // nanosecond (or 8 ulps of the clock, if more) short of it, far more than the rounding of
    // times and bytes can move it (now when it is within a millionth of the threshold already).
    // In index order the flows of a coflow come in runs, whose earliest time stays in a register.
    double slack = 1e-9 + 8 * Math.ulp(now);
    int[] order = schedule.servedInOrder();
    int run = -1;
    double runSafe = Double.POSITIVE_INFINITY;
    for (int k = 0, n = schedule.servedSize(); k < n; k++) {
      int i = order[k];
      double sent = state.sentAt(i);
      int q = flowLevels.level(sent);
      if (flowLevels.isLast(q)) {
        continue;
      }
      double rate = schedule.rate(i);
      double upper = flowLevels.upper(q);
      double left = upper - sent;
      double t = left / rate;
      double crossing = Thresholds.justPast(now, t);
      if (crossing < next) {
        next = crossing;
      }
      double safe = left < 1e-6 * upper ? now : now + t * (1 - 1e-6) - slack;
      int slot = state.slotAt(i);
      if (slot != run) {
        if (run >= 0 && runSafe < safeBySlot[run]) {
          safeBySlot[run] = runSafe;
        }
        run = slot;
        runSafe = safe;
      } else if (safe < runSafe) {
        runSafe = safe;
      }
    }
    if (run >= 0 && runSafe < safeBySlot[run]) {
      safeBySlot[run] = runSafe;
    }
    // Kept levels hold until the first of their flows may pass a threshold at these rates; those
    // of coflows this decision did not look at carry on if they held now.
    kept.keySet().removeIf(c -> c.index() < 0);
    for (java.util.Map.Entry<Coflow, FlowLevels> e : kept.entrySet()) {
      Coflow c = e.getKey();
      FlowLevels at = e.getValue();
      boolean holds =
          at.changes == c.activeChanges() && (at.decidedIn == decisions || now < at.until);
      at.until = holds ? safeBySlot[c.slot()] : Double.NEGATIVE_INFINITY;
    }
    return next;
  }
}
