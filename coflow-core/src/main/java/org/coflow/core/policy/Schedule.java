package org.coflow.core.policy;

import java.util.Arrays;
import java.util.function.IntConsumer;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;

/**
 * A policy's decision for every active flow of a {@link ClusterState}, indexed by {@link
 * Flow#index()}: a rate in bytes/s and a priority class.
 *
 * <p>Priority classes: 0 is the most important; flows of equal importance (for instance all flows
 * of one coflow under a coflow-ordering policy, or every flow under fair sharing) share a class.
 * The priority order lists every active flow once, most important first, in segments ({@link
 * PriorityOrder}): the order is what the shared backfill hands out leftovers by and what Courier
 * selects unified flows by.
 *
 * <p>A schedule is valid only for the state it was computed from: the next change of the state may
 * renumber flows.
 */
public final class Schedule {
  private final int flows;

  /** By flow index; may be longer than {@link #flows} when its array was recycled. */
  private final double[] rate;

  private int[] served;
  private int servedSize;
  private int[] inOrder;

  /** {@code served[sortedFrom .. servedSize)} is in ascending index order. */
  private int sortedFrom;

  /** How many times a rate was set or raised: see {@link #rateChanges}. */
  private long rateChanges;

  /** An array {@link #servedInOrder} may fill instead of allocating one (from a recycled one). */
  private int[] orderBuffer;

  /** All zeros between calls: {@link #servedInOrder}'s bitmap of the served flows. */
  private long[] orderBits;

  /** Every active flow once, most important first, with its class. */
  private final PriorityOrder order;

  /** Steps whose rates are held, not written yet (see {@link #hold}). */
  private final HeldSteps held;

  /** Whether a rate was added on top of another (see {@link #raised}). */
  private boolean raised;

  public Schedule(ClusterState state) {
    this(state, null);
  }

  /**
   * A schedule for {@code state} that takes over the arrays of {@code spare}, a schedule its caller
   * no longer uses (see {@link #recycle}), clearing only the entries {@code spare} had set: a
   * decision then costs the flows it serves, not an array of every active flow.
   */
  private Schedule(ClusterState state, Schedule spare) {
    this.flows = state.flows().size();
    if (spare != null && spare.rate.length >= flows) {
      this.rate = spare.rate;
      this.served = spare.served;
      if (spare.servedSize >= spare.flows / 4) {
        // A quarter of its flows or more were served: zeroing them all in one sweep beats
        // zeroing the served ones one by one.
        Arrays.fill(rate, 0, spare.flows, 0.0);
      } else {
        for (int k = 0; k < spare.servedSize; k++) {
          rate[served[k]] = 0;
        }
      }
      this.orderBuffer =
          spare.inOrder != null && spare.inOrder != spare.served
              ? spare.inOrder
              : spare.orderBuffer;
      this.orderBits = spare.orderBits;
      // The held steps' arrays are this schedule's own copies: taken over for its steps.
      this.held = new HeldSteps(spare.held);
      spare.orderBits = null;
      spare.inOrder = null;
      this.order = new PriorityOrder(state, spare.order);
      spare.servedSize = 0;
    } else {
      this.rate = new double[flows];
      // Sized on demand: most decisions serve a fraction of the flows, and only some policies
      // class single flows (a decision costs what it uses, not three arrays of every active flow).
      this.served = new int[Math.min(flows, 64)];
      this.order = new PriorityOrder(state, null);
      this.held = new HeldSteps();
    }
  }

  public static Schedule empty(ClusterState state) {
    return new Schedule(state);
  }

  /**
   * An empty schedule for {@code state} built on the arrays of {@code spare} (or fresh ones when it
   * is null or too small). The caller promises never to read {@code spare} again: it is cleared.
   * For event loops that discard each decision before asking for the next (the simulator); the live
   * master keeps using {@link #empty}.
   */
  public static Schedule recycle(ClusterState state, Schedule spare) {
    return new Schedule(state, spare);
  }

  public int size() {
    return flows;
  }

  public double rate(int flow) {
    if (held.size() > 0) {
      writeHeld();
    }
    return rate[flow];
  }

  /** Sets the rate of a flow that has none yet. */
  public void setRate(int flow, double bytesPerSecond) {
    if (held.size() > 0) {
      writeHeld();
    }
    if (rate[flow] != 0) {
      throw new IllegalStateException("rate of flow " + flow + " is already set");
    }
    addRate(flow, bytesPerSecond);
  }

  public void addRate(int flow, double bytesPerSecond) {
    if (held.size() > 0 && bytesPerSecond > 0 && held.mayAddToHeld()) {
      writeHeld();
    }
    if (bytesPerSecond > 0) {
      held.given();
      if (rate[flow] == 0) {
        if (servedSize == served.length) {
          served = Arrays.copyOf(served, Math.min(flows, Math.max(64, 2 * servedSize)));
        }
        if (servedSize > 0 && flow < served[servedSize - 1]) {
          sortedFrom = servedSize;
        }
        served[servedSize++] = flow;
        inOrder = null;
      } else {
        raised = true;
      }
      rate[flow] += bytesPerSecond;
      coflowSums = null;
      rateChanges++;
    }
  }

  /**
   * {@link #addRate} for {@code flows[k]} with {@code rates[k]}, k = 0 .. n-1 in that order: the
   * same rates, served list and counts as n calls, with the bookkeeping held in locals over the
   * loop, for a policy that hands out the rates of many flows at once.
   */
  public void addRates(int[] flows, double[] rates, int n) {
    if (held.size() > 0 && n > 0 && held.mayAddToHeld()) {
      writeHeld();
    }
    long changes = put(flows, rates, n);
    if (changes != 0) {
      coflowSums = null;
    }
    rateChanges += changes;
  }

  /**
   * Adds {@code rates[k]} to the rate of {@code flows[k]}, k = 0 .. n-1 in that order, listing the
   * flows that had none among the served; returns how many rates were set or raised.
   */
  private long put(int[] flows, double[] rates, int n) {
    if (n == 0) {
      return 0;
    }
    held.given();
    if (served.length - servedSize < n) {
      int wanted = Math.max(64, Math.max(2 * servedSize, servedSize + n));
      served = Arrays.copyOf(served, Math.min(this.flows, wanted));
    }
    int[] list = served;
    double[] rate = this.rate;
    int size = servedSize;
    int sorted = sortedFrom;
    int last = size > 0 ? list[size - 1] : -1;
    long changes = 0;
    boolean topped = false;
    for (int k = 0; k < n; k++) {
      double r = rates[k];
      if (r > 0) {
        int flow = flows[k];
        if (rate[flow] == 0) {
          if (flow < last) {
            sorted = size;
          }
          list[size++] = flow;
          last = flow;
        } else {
          topped = true;
        }
        rate[flow] += r;
        changes++;
      }
    }
    if (size != servedSize) {
      inOrder = null;
    }
    raised |= topped;
    servedSize = size;
    sortedFrom = sorted;
    return changes;
  }

  /**
   * Gives the active flows of {@code c} at {@code positions[0 .. n)} the {@code rates}, as {@link
   * #addRates} of their indices would, but holds them rather than writing them until the rates are
   * read: {@link #rate}, {@link #served} and every other reader of rates (or adder of one) writes
   * the held steps first, in the order they were held, so that a reader sees exactly what {@link
   * #addRates} would have left. A caller that knows these flows already move at exactly these
   * rates, but for those listed as changed (a fluid replay's event loop, see {@link
   * SchedulingPolicy#passesOverHeld}), reads {@link #written} instead and passes over the held
   * steps, at the cost of the steps and their changes rather than their flows (the positions and
   * rates are copied, in bulk, so the caller may change its arrays).
   *
   * <p>{@code changedAt[0 .. changes)} (increasing indices into {@code positions}; {@code
   * changedAt} may be null if there are none) are the flows whose rates differ from those they move
   * at: the caller passing over the step takes these from {@link HeldSteps#changes}.
   *
   * <p>A step is held only if {@code c} was given no rate in this schedule yet, and every rate
   * given so far was given to a coflow its step said ({@link #giving}); otherwise, or if a rate is
   * not positive, nothing is done and false returned, for the caller to write the step ({@link
   * #addRates}, said of {@code c}). So no flow of a held step has another rate in the schedule,
   * held or written, until the held steps are written.
   */
  boolean hold(Coflow c, int[] positions, double[] rates, int n, int[] changedAt, int changes) {
    if (n == 0 || !held.mayHold(c)) {
      return false; // its flows may have rates already: the caller writes the step
    }
    for (int j = 0; j < n; j++) {
      if (!(rates[j] > 0)) {
        return false;
      }
    }
    held.add(c, positions, rates, n, changedAt, changes, servedSize);
    rateChanges += n;
    coflowSums = null;
    return true;
  }

  /**
   * Says that the rates added until the next call go to flows of {@code c} (null: not said). A step
   * of one coflow says so, so that a step of the same coflow is not held while other steps' rates
   * may be: see {@link #hold}.
   */
  void giving(Coflow c) {
    held.giving(c);
  }

  /**
   * Writes the held steps' rates (see {@link #hold}), each step's flows listed among the served
   * where they would have been had it been written when held: the served list, and every rate, are
   * what {@link #addRates} of the steps in their turn would have left. (No held flow has a rate
   * yet: a rate that may reach one has the held steps written first.)
   */
  public void writeHeld() {
    int h = held.size();
    if (h == 0) {
      return;
    }
    int total = servedSize + held.flows();
    if (served.length < total) {
      served =
          Arrays.copyOf(served, Math.min(flows, Math.max(64, Math.max(2 * servedSize, total))));
    }
    // From the back: the written flows after each step's place move up past its flows.
    int from = servedSize - 1;
    int to = total - 1;
    for (int k = h - 1; k >= 0; k--) {
      for (int where = held.where(k); from >= where; ) {
        served[to--] = served[from--];
      }
      Coflow c = held.coflow(k);
      int[] at = held.at(k);
      double[] rates = held.rates(k);
      for (int j = held.flows(k) - 1; j >= 0; j--) {
        int flow = c.activeIndex(at[j]);
        rate[flow] = rates[j];
        served[to--] = flow;
      }
    }
    held.clear();
    servedSize = total;
    sortedFrom = 0;
    for (int k = 1; k < total; k++) {
      if (served[k] < served[k - 1]) {
        sortedFrom = k;
      }
    }
    inOrder = null;
  }

  /** The steps held rather than written (see {@link #hold}); none once they are written. */
  public HeldSteps held() {
    return held;
  }

  /**
   * The flows whose rates are written, with a positive rate (length {@link #writtenSize}): the
   * {@link #served} flows but for those of the held steps, without writing these. Do not modify.
   */
  public int[] written() {
    return served;
  }

  public int writtenSize() {
    return servedSize;
  }

  /** The rate written for {@code flow}: its {@link #rate}, or 0 if it is in a held step. */
  public double writtenRate(int flow) {
    return rate[flow];
  }

  /**
   * Whether a rate was added on top of another since the schedule was made (a backfill topping up a
   * flow already served): the raised flow's rate is then more than the step that served it gave.
   */
  public boolean raised() {
    return raised;
  }

  /**
   * A count that grows whenever a rate is set or raised: a policy that summed the rates while
   * setting them knows its sums still hold if the count is what it was.
   */
  public long rateChanges() {
    return rateChanges;
  }

  /** Indices of the flows with a positive rate (length {@link #servedSize()}). Do not modify. */
  public int[] served() {
    if (held.size() > 0) {
      writeHeld();
    }
    return served;
  }

  public int servedSize() {
    if (held.size() > 0) {
      writeHeld();
    }
    return servedSize;
  }

  /**
   * The flows with a positive rate in ascending index order (length {@link #servedSize()}; do not
   * modify): loops that accumulate over them get sums that do not depend on the order rates were
   * set in, and walk the state's arrays forwards.
   */
  public int[] servedInOrder() {
    if (held.size() > 0) {
      writeHeld();
    }
    if (inOrder == null && sortedFrom == 0) {
      inOrder = served; // set in ascending order already
    } else if (inOrder == null && sortedFrom <= servedSize / 4) {
      inOrder = mergeSortedSuffix();
    } else if (inOrder == null) {
      int[] sorted =
          orderBuffer != null && orderBuffer.length >= servedSize
              ? orderBuffer
              : new int[servedSize];
      orderBuffer = null;
      // A bitmap of the served flows read word by word: the cost of the served flows plus one
      // word per 64 flows, with neither a sort's comparisons nor a branch per flow.
      int words = (flows + 63) >>> 6;
      long[] bits = orderBits != null && orderBits.length >= words ? orderBits : new long[words];
      for (int k = 0; k < servedSize; k++) {
        int i = served[k];
        bits[i >>> 6] |= 1L << i;
      }
      for (int w = 0, k = 0; k < servedSize; w++) {
        long b = bits[w];
        if (b != 0) {
          bits[w] = 0;
          int base = w << 6;
          do {
            sorted[k++] = base + Long.numberOfTrailingZeros(b);
            b &= b - 1;
          } while (b != 0);
        }
      }
      // Every word read is cleared again: the bitmap is all zeros for the next call.
      orderBits = bits;
      inOrder = sorted;
    }
    return inOrder;
  }

  /**
   * {@link #servedInOrder} of flows served mostly in index order: the few served before the
   * ascending run that ends the list are sorted and merged into it.
   */
  private int[] mergeSortedSuffix() {
    int[] sorted =
        orderBuffer != null && orderBuffer.length >= servedSize ? orderBuffer : new int[servedSize];
    orderBuffer = null;
    int[] head = Arrays.copyOf(served, sortedFrom);
    Arrays.sort(head);
    int h = 0;
    int t = sortedFrom;
    int k = 0;
    while (h < head.length && t < servedSize) {
      sorted[k++] = head[h] < served[t] ? head[h++] : served[t++];
    }
    while (h < head.length) {
      sorted[k++] = head[h++];
    }
    while (t < servedSize) {
      sorted[k++] = served[t++];
    }
    return sorted;
  }

  /** {@link #coflowRates}, kept until a rate changes (policies ask for it twice per decision). */
  private double[] coflowSums;

  /**
   * Sum of the rates per coflow, indexed by {@link Coflow#index()}. Do not modify: the same array
   * is returned until a rate changes.
   */
  public double[] coflowRates(ClusterState state) {
    if (coflowSums != null) {
      return coflowSums;
    }
    if (held.size() > 0) {
      writeHeld();
    }
    double[] sums = new double[state.coflows().size()];
    int[] order = servedInOrder();
    // Flows of one coflow come in runs (dense indices follow admission): a run's sum is kept in a
    // register and stored once, with the same additions in the same order as adding into the array
    // flow after flow, but without reading back the value just stored.
    Coflow run = null;
    int at = 0;
    double sum = 0;
    for (int k = 0; k < servedSize; k++) {
      int i = order[k];
      Coflow c = state.coflowAt(i);
      if (c != run) {
        if (run != null) {
          sums[at] = sum;
        }
        run = c;
        at = c.index();
        sum = sums[at];
      }
      sum += rate[i];
    }
    if (run != null) {
      sums[at] = sum;
    }
    coflowSums = sums;
    return sums;
  }

  /**
   * Whether {@link #coflowRates} is known for the rates as they are (asking then costs nothing).
   */
  public boolean coflowRatesKnown() {
    return coflowSums != null;
  }

  /**
   * Hands this schedule the sums {@link #coflowRates} would compute for its rates as they are, from
   * a caller that walks the served flows in index order anyway (the simulator's event step), so
   * that a policy asking for them next does not walk the flows again. {@code sums} must be indexed
   * by {@link Coflow#index()} and hold the same additions in the same order: each served flow's
   * rate added to its coflow's sum, flows in ascending index order, from zero. Kept, not copied,
   * until a rate changes.
   */
  public void knowCoflowRates(double[] sums) {
    coflowSums = sums;
  }

  /** The priority order, for the shared backfill that walks it segment by segment. */
  PriorityOrder order() {
    return order;
  }

  /** Priority class of a flow (0 = most important). */
  public int priority(int flow) {
    return order.priority(flow);
  }

  /** Appends one flow to the priority order with the given class. */
  public void append(int flow, int priorityClass) {
    order.append(flow, priorityClass);
  }

  /**
   * Appends the active flows of {@code c} at positions {@code at[from .. to)} (positions in {@link
   * Coflow#activeFlows()}), in that order, to the priority order with one class: the same as {@link
   * #append} of each, at the cost of copying the positions (the flows' classes are written only if
   * {@link #priority} is asked).
   */
  public void appendPositions(Coflow c, int[] at, int from, int to, int priorityClass) {
    order.appendPositions(c, at, from, to, priorityClass);
  }

  /** Appends all active flows of a coflow to the priority order with one class. */
  public void appendCoflow(Coflow c, int priorityClass) {
    order.appendCoflow(c, priorityClass);
  }

  /**
   * Gives each flow of {@code c} the class of its receiver: {@code classOf[r]} for receiving port
   * {@code r} (copied). The flows enter the order with {@link #appendReceivers}, once per class.
   */
  public void classByReceiver(Coflow c, int[] classOf) {
    order.classByReceiver(c, classOf);
  }

  /**
   * Appends the active flows of {@code c} whose receiver has class {@code priorityClass} (see
   * {@link #classByReceiver}) to the priority order, in the coflow's order.
   */
  public void appendReceivers(Coflow c, int priorityClass) {
    order.appendReceivers(c, priorityClass);
  }

  /** Number of flows in the priority order (every active flow, once, when complete). */
  public int orderSize() {
    return order.size();
  }

  /**
   * If every segment of the order is a whole coflow ({@link #appendCoflow}), writes the segments'
   * coflows and classes into the arrays, in order, and returns their number; otherwise, or if the
   * arrays are too short, returns -1. Costs the segments, not the flows: a wrapper that keeps
   * something per flow from one decision to the next learns from it whether the order changed.
   */
  public int wholeCoflowSegments(Coflow[] coflows, int[] classes) {
    return order.wholeCoflowSegments(coflows, classes);
  }

  /**
   * Appends the priority order of {@code other}, a schedule of the same state, to this one's,
   * segment by segment: the same flows in the same order with the same classes as {@link #append}
   * of each, at the cost of the segments (a wrapper that keeps its inner policy's order).
   */
  public void appendOrderOf(Schedule other) {
    order.appendAll(other.order);
  }

  /**
   * Writes every flow index in priority order into {@code flows} and its class into {@code classes}
   * (both at least {@link #orderSize} long); returns the number written. The walk of {@link
   * #forEachInOrder}, written out with the classes rather than through a callback: Courier calls it
   * at every event.
   */
  public int orderInto(int[] flows, int[] classes) {
    return order.into(flows, classes);
  }

  /** Calls {@code action} with every flow index in priority order. */
  public void forEachInOrder(IntConsumer action) {
    order.forEach(action);
  }
}
