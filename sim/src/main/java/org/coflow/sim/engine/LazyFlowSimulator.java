package org.coflow.sim.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Baraat;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The event loop's engine for policies that read no flow's progress, only their coflows' totals
 * ({@link Coflow#bytesSent()}, and the coflows' summed rates): a flow is moved only when its rate
 * changes or it finishes, not at every event.
 *
 * <p>Between two changes of its rate, a flow's bytes left are a line in time: it keeps its rate,
 * the time of its last change and what it had left then (its anchor). An event compares each served
 * flow's new rate with the one it moves at (a load and a compare, where the per-flow loop divides
 * and writes per flow and per coflow), and re-anchors only the flows whose rate changed: from 8 to
 * 13% of the served flows per event under Aalo, Graviton and Baraat on the Facebook trace. The
 * moving flows sit in a heap keyed by the time they count as finished, so the next completion and
 * the flows finishing in an event come from its top. A coflow's bytes are counted per (coflow,
 * receiver) at the sum of its flows' rates there ({@link ClusterState#addReceived}), and a flow's
 * own count is settled as it finishes ({@link ClusterState#settleSent}); the coflows' summed rates
 * are handed to the schedule ({@link Schedule#knowCoflowRates}) from the same sums.
 *
 * <p>It follows the per-flow loop's rules: events at arrivals, completions and the policy's
 * decision times; flows completing within the completion window of the first one complete together
 * at the last one's time; a flow finishes once what it has left is within a nanosecond of service
 * or a billionth of its size; flows finishing together leave in id order. Sums are made in another
 * order, so completion times may differ from the per-flow loop's in the last digits ({@code
 * SimulatorDifferentialTest} bounds the difference).
 *
 * <p>Baraat's first class, when Baraat fills it from its pair counts, is taken by pair ({@link
 * Baraat#firstClass}): its flows are not in the schedule, each moves at its pair's rate, and an
 * event compares them in the order the schedule would have listed them, so the run is bit for bit
 * the one that takes them from the schedule. A decision that keeps the rates of the last fill for
 * the same class (same coflows, so the same flows on the same pairs) changes none of them and skips
 * them. The class holds most of the served flows: the schedule's hand-out and the comparison were
 * two passes over them per decision, now one, and none for a class found unchanged.
 *
 * <p>A step the policy holds in the schedule ({@link Schedule#hold}, under {@link
 * SchedulingPolicy#passesOverHeld}) gives its coflow's flows the rates of the last decision, which
 * they move at, but for the flows it lists as changed ({@link
 * org.coflow.core.policy.HeldSteps#changes}): an event counts them as moving, compares the written
 * rates and re-anchors the listed flows at the step's place among the written ones. Most of Aalo's
 * and Graviton's served flows come in such steps. If a held coflow has other flows moving, the held
 * steps are written and compared like the rest.
 *
 * <p>Only for policies that read no per-flow progress ({@link
 * SchedulingPolicy#readsCoflowTotalsOnly}: Aalo, Baraat, Graviton, SCF): {@link
 * ClusterState#sentAt} and {@link Coflow#remainingFrom} lag behind here.
 */
final class LazyFlowSimulator extends EventLoop {
  private Schedule schedule;
  private Baraat.FirstClass first;
  private final List<Flow> finishing = new ArrayList<>();

  // Per active flow, by dense index (moved as the state moves its flows): the rate it moves at
  // and its anchor (time and bytes left then; when it finishes follows, see FinishHeap.until).
  private double[] rate = new double[1024];
  private double[] since = new double[1024];
  private double[] left = new double[1024];

  /** The moving flows by when they count as finished. */
  private final FinishHeap heap = new FinishHeap();

  /** Bytes counted per (coflow, receiver) at the sum of its moving flows' rates. */
  private final ReceiverAccounts accounts;

  /**
   * Scratch of {@link #follow}: the flows found to change, in order; grown only by {@link #room}.
   */
  private int[] found = new int[64];

  /** Beside {@link #found}: the new rate of each flow found to change (0 for one stopped). */
  private double[] foundRate = new double[64];

  // Baraat's first class as the last follow took it by pair: its coflows, the fill its rates came
  // from, and how many of its flows move.
  private Coflow[] classCoflows = new Coflow[0];
  private int classSize;
  private long classFills = -1;
  private int classMoving;

  /**
   * Scratch of {@link #compare}: how many of the class's served flows were moving before the follow
   * under way (read right after its loop over the class).
   */
  private int classStill;

  /**
   * Scratch of {@link #compareWritten}: how many of the written flows were moving before the follow
   * under way (read right after it).
   */
  private int writtenStill;

  /** Baraat's first class's coflows, each one's flows as the last loop over it left them. */
  private final ClassSections sections;

  /**
   * Whether the policy may hold steps whose flows move at their rates already, but for those they
   * list ({@link SchedulingPolicy#passesOverHeld}; tests turn it off to compare).
   */
  boolean passOverHeld = true;

  /** Served flows a follow passed over in held steps (for tests). */
  long passed;

  /** Flows of held steps a follow re-anchored, listed as changed (for tests). */
  long heldChanged;

  /** Per coflow slot, how many of its flows move (for the held steps' check). */
  private int[] coflowMoving = new int[0];

  /** Per coflow slot, {@link #heldStamp} if a step of it is held in the follow under way. */
  private int[] heldMark = new int[0];

  private int heldStamp;

  /** Loops over the first class so far, and decisions that did not take it by pair. */
  private long classLoops;

  /** Rate changes taken with the heap mended per flow, and with it rebuilt (for tests). */
  long mended;

  long rebuilt;

  /** Moving flows the schedule stopped serving (for tests). */
  long stopped;

  /** Accounts summed afresh (for tests). */
  long resums() {
    return accounts.resums;
  }

  /**
   * Whether Baraat's first class is taken by pair ({@link Baraat#firstClass}; tests turn it off).
   */
  boolean firstClassByPair = true;

  /**
   * Follows that took Baraat's first class by pair, and of those, the ones that found it unchanged
   * and skipped its flows (for tests).
   */
  long classTaken;

  long classKept;

  /** Coflows of the first class whose flows a loop read from their kept section (for tests). */
  long sectionsKept() {
    return sections.kept;
  }

  LazyFlowSimulator(
      List<TraceCoflow> coflows, int ports, double bandwidth, double coalesce, Model model) {
    super(coflows, ports, bandwidth, coalesce, model);
    this.accounts = new ReceiverAccounts(ports);
    this.sections = new ClassSections(ports);
  }

  @Override
  void start() {
    policy.movesAsDecided();
    if (passOverHeld) {
      policy.passesOverHeld();
    }
    first = firstClassByPair && policy instanceof Baraat b ? b.firstClass() : null;
  }

  @Override
  void admit(TraceCoflow tc, int seq, double now) {
    int before = state.flows().size();
    Simulator.admit(state, tc, seq, now);
    admitted(state, before);
  }

  @Override
  double decide(double now, double untilArrival) {
    schedule = policy.schedule(state, now);
    events++;
    follow(state, schedule, first, now);
    schedule.knowCoflowRates(accounts.coflowRates(state));
    long changes = schedule.rateChanges();
    double decision = policy.nextDecisionTime(state, schedule, now);
    if (schedule.rateChanges() != changes) {
      follow(state, schedule, first, now); // it changed a rate
    }
    if (checker != null) {
      // The rates the flows move at, whether from the schedule or by pair.
      checker.checkRates(state, rate, now, policy.name());
    }
    double dt = untilArrival;
    if (decision < now + dt) {
      dt = Math.max(decision - now, FluidStep.SECONDS);
    }
    dt = heap.until(now, dt, coalesce, since, left, rate);
    if (dt == Double.POSITIVE_INFINITY) {
      throw Simulator.stalled(policy.name(), now, state.flows().size());
    }
    return dt;
  }

  @Override
  void advance(double now, double dt, double end, Finished finished) {
    // Credited over the rounded clock's step, the time the anchors' differences see.
    accounts.credit(state, end - now);
    heap.finished(state.flows(), end, finishing);
    for (Flow f : finishing) {
      if (finish(state, f, end)) {
        finished.coflow((int) f.coflow().seq(), f.coflow().bytesSent());
      }
    }
    policy.recycle(schedule);
  }

  /**
   * Flows from dense index {@code from} on were just admitted: still, with all their bytes left.
   */
  private void admitted(ClusterState state, int from) {
    int size = state.flows().size();
    if (size > rate.length) {
      int len = Math.max(size, 2 * rate.length);
      rate = Arrays.copyOf(rate, len);
      since = Arrays.copyOf(since, len);
      left = Arrays.copyOf(left, len);
    }
    heap.admitted(from, size);
    for (int i = from; i < size; i++) {
      double bytes = state.sizeAt(i);
      if (!(bytes > 0)) {
        throw new IllegalStateException(
            state.flows().get(i)
                + " has no known size: it cannot be simulated by its rate changes");
      }
      rate[i] = 0;
      left[i] = bytes;
    }
    if (coflowMoving.length < state.slots()) {
      int len = Math.max(state.slots(), 2 * coflowMoving.length);
      coflowMoving = Arrays.copyOf(coflowMoving, len);
      heldMark = Arrays.copyOf(heldMark, len);
    }
    accounts.admitted(state.slots());
  }

  /**
   * Takes the rates of {@code schedule}, and of Baraat's first class by pair when {@code first}
   * says the decision filled it so: every served flow whose rate differs from the one it moves at,
   * and every moving flow no longer served, is re-anchored at {@code now}. The first class's flows
   * come first, in the order the per-flow entry point would have listed them in the schedule, so
   * the flows are re-anchored in the same order either way (but for a decision whose backfill could
   * top up the class, which Baraat puts in the schedule after its later classes). When many change,
   * the heap is rebuilt once rather than mended per flow (when more than half the moving flows
   * change: a rebuild at an eighth made Aalo's whole trace 4% slower).
   */
  private void follow(ClusterState state, Schedule schedule, Baraat.FirstClass first, double now) {
    int wasMoving = heap.size();
    int stillMoving = 0;
    int changed = 0;
    int size = first == null ? 0 : first.coflows();
    double[] pairRate = size > 0 ? first.rates() : null;
    if (size > 0) {
      classTaken++;
    }
    if (size > 0 && sameClass(state, first)) {
      classKept++;
      stillMoving = classMoving; // nothing changed there: the same flows at the same pair rates
    } else if (size > 0) {
      keepClass(state, first);
      classMoving = 0;
      classStill = 0;
      long previous = classLoops++;
      List<Coflow> active = state.coflows();
      for (int j = 0; j < size; j++) {
        Coflow c = active.get(j);
        int n = c.activeCount();
        int s = sections.take(c, n, previous, rate);
        changed = compare(c, sections.keys(s), sections.rates(s), n, pairRate, changed);
      }
      stillMoving = classStill;
    } else {
      classSize = 0;
      classLoops++; // the schedule may give any flow of the last class another rate
    }
    // The steps the schedule holds give their flows the rates they move at, but for the changes
    // they list; passed over if they are all of their coflows' moving flows (no other of them to
    // stop), else written.
    int held = schedule.held().size();
    if (held > 0) {
      heldStamp++;
      for (int h = 0; h < held; h++) {
        Coflow c = schedule.held().coflow(h);
        if (coflowMoving[c.slot()] != schedule.held().flows(h)) {
          schedule.writeHeld();
          held = 0;
          break;
        }
        heldMark[c.slot()] = heldStamp;
      }
      stillMoving += schedule.held().flows();
      passed += schedule.held().flows();
    }
    // The written flows and the held steps' changes, in the order of the served list once written.
    changed = compareWritten(schedule, held, changed);
    stillMoving += writtenStill;
    int started = changed;
    if (stillMoving != wasMoving) {
      for (int h = 0, moving = heap.size(); h < moving; h++) {
        int i = heap.flowAt(h);
        if (schedule.writtenRate(i) == 0
            && !(held > 0 && heldMark[state.slotAt(i)] == heldStamp)
            && !(state.coflowAt(i).index() < size
                && pairRate[state.srcAt(i) * ports + state.dstAt(i)] > 0)) {
          room(changed + 1);
          found[changed] = i;
          foundRate[changed++] = 0;
        }
      }
    }
    stopped += changed - started;
    boolean rebuild = changed > heap.size() / 2;
    if (rebuild) {
      rebuilt += changed;
    } else {
      mended += changed;
    }
    change(state, changed, now, rebuild);
    if (rebuild) {
      heap.rebuild();
    }
  }

  /**
   * Compares the {@code n} flows of coflow {@code c}'s section (pair keys {@code keys}, the rates
   * they move at {@code rates}) with their pairs' rates {@code pairRate}: notes each flow whose
   * rate changes after the {@code changed} noted so far, and returns their new count; counts the
   * served flows in {@link #classMoving} and those moving already in {@link #classStill}. Room for
   * every flow is made first, so the loop keeps its arrays in locals.
   */
  private int compare(Coflow c, int[] keys, double[] rates, int n, double[] pairRate, int changed) {
    room(changed + n);
    int[] ids = found;
    double[] to = foundRate;
    int served = 0;
    int still = 0;
    for (int k = 0; k < n; k++) {
      double r = pairRate[keys[k]];
      if (r > 0) {
        served++;
        double old = rates[k];
        if (old > 0) {
          still++;
        }
        if (r != old) {
          ids[changed] = c.activeIndex(k);
          to[changed++] = r;
          rates[k] = r;
        }
      } else {
        rates[k] = 0; // not served by pair: stopped in follow if it moved
      }
    }
    classMoving += served;
    classStill += still;
    return changed;
  }

  /**
   * Compares the flows the schedule wrote, and the changes its {@code held} held steps list, with
   * the rates they move at, in the order of the served list once written: notes each flow whose
   * rate changes after the {@code changed} noted so far, and returns their new count; counts the
   * written flows moving already in {@link #writtenStill}. One loop with its arrays in locals, like
   * {@link #compare}.
   */
  private int compareWritten(Schedule schedule, int held, int changed) {
    int[] served = schedule.written();
    int m = schedule.writtenSize();
    room(changed + m);
    int[] ids = found;
    double[] to = foundRate;
    double[] rate = this.rate;
    int still = 0;
    int next = 0;
    int nextWhere = held > 0 ? schedule.held().where(0) : Integer.MAX_VALUE;
    for (int k = 0; k <= m; k++) {
      while (nextWhere <= k) {
        int n = schedule.held().changes(next);
        // Room for the step's changes and the written flows still to come.
        if (ids.length < changed + n + m - k) {
          room(changed + n + m - k);
          ids = found;
          to = foundRate;
        }
        for (int j = 0; j < n; j++) {
          int i = schedule.held().changedFlow(next, j);
          double r = schedule.held().changedRate(next, j);
          if (r != rate[i]) {
            ids[changed] = i;
            to[changed++] = r;
            heldChanged++;
          }
        }
        passed -= n;
        nextWhere = ++next < held ? schedule.held().where(next) : Integer.MAX_VALUE;
      }
      if (k == m) {
        break;
      }
      int i = served[k];
      double r = schedule.writtenRate(i);
      double old = rate[i];
      if (old > 0) {
        still++;
      }
      if (r != old) {
        ids[changed] = i;
        to[changed++] = r;
      }
    }
    writtenStill = still;
    return changed;
  }

  /** Makes room in {@link #found} and {@link #foundRate} for {@code need} flows. */
  private void room(int need) {
    if (found.length < need) {
      int len = Math.max(need, 2 * found.length);
      found = Arrays.copyOf(found, len);
      foundRate = Arrays.copyOf(foundRate, len);
    }
  }

  /**
   * Whether Baraat's first class is the one the last follow took, with rates of the same fill: no
   * flow of it finished since (that would have changed its counts, hence filled them afresh).
   */
  private boolean sameClass(ClusterState state, Baraat.FirstClass first) {
    if (first.fills() != classFills || first.coflows() != classSize) {
      return false;
    }
    List<Coflow> active = state.coflows();
    for (int j = 0; j < classSize; j++) {
      if (active.get(j) != classCoflows[j]) {
        return false;
      }
    }
    return true;
  }

  private void keepClass(ClusterState state, Baraat.FirstClass first) {
    classSize = first.coflows();
    classFills = first.fills();
    if (classCoflows.length < classSize) {
      classCoflows = new Coflow[Math.max(classSize, 2 * classCoflows.length)];
    }
    for (int j = 0; j < classSize; j++) {
      classCoflows[j] = state.coflows().get(j);
    }
  }

  /**
   * Re-anchors the first {@code changed} flows {@link #found} to change at {@code now}, each at its
   * {@link #foundRate}; with {@code unordered} the heap is left as a bag of the moving flows, for
   * the caller to rebuild. One loop with the flows' arrays in locals (they grow only as flows are
   * admitted), like {@link #compare}.
   */
  private void change(ClusterState state, int changed, double now, boolean unordered) {
    int[] ids = found;
    double[] to = foundRate;
    double[] rate = this.rate;
    double[] since = this.since;
    double[] left = this.left;
    int[] perCoflow = coflowMoving;
    for (int k = 0; k < changed; k++) {
      int i = ids[k];
      double r = to[k];
      double old = rate[i];
      if ((old > 0) != (r > 0)) {
        perCoflow[state.slotAt(i)] += r > 0 ? 1 : -1;
      }
      int a = accounts.of(state, i, r > 0);
      if (old > 0) {
        left[i] -= old * (now - since[i]);
      }
      since[i] = now;
      rate[i] = r;
      accounts.change(a, old, r, rate);
      if (r > 0) {
        double slack = Math.max(r * FluidStep.SECONDS, 1e-9 * state.sizeAt(i));
        heap.set(i, now + (left[i] - slack) / r, !unordered);
      } else {
        heap.remove(i, !unordered);
      }
    }
  }

  /**
   * Finishes flow {@code f} at {@code now}: its coflow is credited what it had left beyond the
   * bytes its account counted for it (negative if it idled), its own count settled, and the state's
   * last flow takes its dense index here too. Returns true if its coflow finished with it.
   */
  private boolean finish(ClusterState state, Flow f, double now) {
    int i = f.index();
    double r = rate[i];
    double size = state.sizeAt(i);
    double rest = left[i] - r * (now - since[i]);
    // What it has left at the end of the event: within its slack (a nanosecond of service or a
    // billionth of its size), or below zero by the time it idled in the completion window.
    if (rest > Math.max(r * FluidStep.SECONDS, 1e-9 * size) + 1e-6 * size
        || rest < -(coalesce * size + 1e-6 * size)) {
      throw new IllegalStateException(
          f + " finished at t=" + now + "s with " + rest + " of " + size + " bytes left");
    }
    state.addReceived(f.coflow(), f.dst(), rest);
    state.settleSent(i, state.sizeAt(i) - state.sentAt(i));
    int a = accounts.of(state, i, false);
    if (r > 0) {
      coflowMoving[state.slotAt(i)]--;
    }
    rate[i] = 0;
    accounts.change(a, r, 0, rate);
    heap.remove(i, true);
    int last = state.flows().size() - 1;
    boolean coflowDone = state.finishFlow(f, now);
    if (last != i) {
      rate[i] = rate[last];
      since[i] = since[last];
      left[i] = left[last];
      heap.moved(last, i);
    }
    return coflowDone;
  }
}
