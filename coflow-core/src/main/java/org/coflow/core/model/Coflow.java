package org.coflow.core.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A coflow: the flows of one shuffle (one Spark shuffle, one MapReduce job), which the job waits
 * for as a whole. Its completion time (CCT) is when its last flow finishes.
 *
 * <p>Mutable bookkeeping ({@link #bytesSent()}, the number of unfinished flows) is owned by the
 * {@link ClusterState} that holds the coflow; policies only read it.
 */
public final class Coflow {
  private final String id;
  private final long seq;
  private final double arrival;
  private final double weight;
  private final List<Flow> flows = new ArrayList<>();
  private final List<Flow> flowsView = Collections.unmodifiableList(flows);
  private final List<Flow> active = new ArrayList<>();
  private final List<Flow> activeView = Collections.unmodifiableList(active);

  /**
   * Per active flow, parallel to {@link #activeFlows()}: its dense index in the state, source and
   * destination ports. Loops over a coflow's flows read these instead of the flow objects.
   */
  private int[] activeIndex = new int[8];

  private int[] activeSrc = new int[8];
  private int[] activeDst = new int[8];
  private ClusterState state;
  private long activeChanges;
  private double bytesSent;
  private int unfinished;
  private double finishTime = Double.NaN;

  /** Position in {@link ClusterState#coflows()} while active, -1 otherwise. */
  int index = -1;

  int slot = -1;

  private double[] received = new double[0];
  private double[] sizeTo = new double[0];
  private double[] sentFrom = new double[0];
  private double[] sizeFrom = new double[0];
  private final List<Integer> senders = new ArrayList<>();
  private final java.util.BitSet senderSeen = new java.util.BitSet();
  private int unknownSizes;
  private int[] activeTo = new int[0];

  /** Per receiving port, how many times its set of active flows changed: see {@link #changesTo}. */
  private int[] changesTo = new int[0];

  /**
   * Per receiving port, the positions (in {@link #activeFlows()}) of its active flows in increasing
   * order: the first {@code activeTo[port]} entries. Kept up to date as flows come and go (a flow
   * finishing costs its ports' lists), so a step that only wants the flows into some receivers, or
   * those of a receiver after a given position, skips the others without looking at them.
   */
  private int[][] positionsTo = new int[0][];

  private int[] activeFrom = new int[0];

  /** The same per sending port. */
  private int[][] positionsFrom = new int[0][];

  private final List<Integer> receivers = new ArrayList<>();

  // The same ports as plain ints, for the per-decision loops of policies.
  private int[] senderPorts = new int[4];
  private int[] receiverPorts = new int[4];
  private final java.util.BitSet receiverSeen = new java.util.BitSet();

  /**
   * @param id stable identifier (Spark: application id + shuffle id; MapReduce: job id)
   * @param seq arrival sequence number: lower means earlier; ties in {@code arrival} are broken by
   *     it
   * @param arrival arrival time in seconds
   * @param weight relative importance for weighted policies (1 for all in the trace)
   */
  public Coflow(String id, long seq, double arrival, double weight) {
    if (!(weight > 0)) {
      throw new IllegalArgumentException(
          "coflow " + id + ": weight must be positive, got " + weight);
    }
    this.id = id;
    this.seq = seq;
    this.arrival = arrival;
    this.weight = weight;
  }

  public String id() {
    return id;
  }

  public long seq() {
    return seq;
  }

  public double arrival() {
    return arrival;
  }

  public double weight() {
    return weight;
  }

  /**
   * A small number no other active coflow of its {@link ClusterState} has, kept while the coflow is
   * active (unlike {@link #index()}, which shifts as earlier coflows finish): a finished coflow's
   * slot goes to a later one. Below {@link ClusterState#slots()}; -1 before it is admitted.
   */
  public int slot() {
    return slot;
  }

  /** Position among the active coflows of its {@link ClusterState} (arrival order), or -1. */
  public int index() {
    return index;
  }

  /** All flows ever added, finished or not. */
  public List<Flow> flows() {
    return flowsView;
  }

  /** Unfinished flows, in no particular order (removal moves the last flow into the gap). */
  public List<Flow> activeFlows() {
    return activeView;
  }

  /** Bytes sent so far, summed over all flows of the coflow (cluster-wide). */
  public double bytesSent() {
    return bytesSent;
  }

  /** Flows that still have bytes to send. */
  public int unfinishedFlows() {
    return unfinished;
  }

  /** True when every flow is known in size (a clairvoyant coflow). */
  public boolean sizesKnown() {
    return unknownSizes == 0;
  }

  /** Sum of the known flow sizes (bytes); flows of unknown size count what they have sent. */
  public double totalBytes() {
    double total = 0;
    for (Flow f : flows) {
      total += f.sizeKnown() ? f.size() : f.sent();
    }
    return total;
  }

  /** Completion time in seconds, or NaN while unfinished. */
  public double finishTime() {
    return finishTime;
  }

  void addFlow(Flow f) {
    int dst = f.dst();
    int src = f.src();
    int need = Math.max(src, dst) + 1;
    if (need > activeTo.length) {
      int len = Math.max(need, 2 * activeTo.length);
      received = java.util.Arrays.copyOf(received, len);
      sizeTo = java.util.Arrays.copyOf(sizeTo, len);
      sentFrom = java.util.Arrays.copyOf(sentFrom, len);
      sizeFrom = java.util.Arrays.copyOf(sizeFrom, len);
      activeTo = java.util.Arrays.copyOf(activeTo, len);
      changesTo = java.util.Arrays.copyOf(changesTo, len);
      activeFrom = java.util.Arrays.copyOf(activeFrom, len);
      positionsTo = java.util.Arrays.copyOf(positionsTo, len);
      positionsFrom = java.util.Arrays.copyOf(positionsFrom, len);
    }
    if (f.sizeKnown()) {
      sizeTo[dst] += f.size();
      sizeFrom[src] += f.size();
    } else {
      unknownSizes++;
    }
    if (!senderSeen.get(src)) {
      senderSeen.set(src);
      senders.add(src);
      senderPorts = append(senderPorts, senders.size(), src);
    }
    if (!receiverSeen.get(dst)) {
      receiverSeen.set(dst);
      receivers.add(dst);
      receiverPorts = append(receiverPorts, receivers.size(), dst);
    }
    flows.add(f);
    int k = active.size();
    if (k == activeIndex.length) {
      activeIndex = java.util.Arrays.copyOf(activeIndex, 2 * k);
      activeSrc = java.util.Arrays.copyOf(activeSrc, 2 * k);
      activeDst = java.util.Arrays.copyOf(activeDst, 2 * k);
    }
    // k is the highest position: it goes at the end of its ports' lists.
    positionsTo[dst] = listed(positionsTo[dst], activeTo[dst]++, k);
    changesTo[dst]++;
    positionsFrom[src] = listed(positionsFrom[src], activeFrom[src]++, k);
    activeIndex[k] = f.index;
    activeSrc[k] = src;
    activeDst[k] = dst;
    activeChanges++;
    log(-1, k, src, dst);
    f.coflowIndex = k;
    active.add(f);
    unfinished++;
  }

  /** {@code list} (grown if full) with position {@code k} put at {@code slot}. */
  private static int[] listed(int[] list, int slot, int k) {
    if (list == null) {
      list = new int[4];
    } else if (slot == list.length) {
      list = java.util.Arrays.copyOf(list, 2 * slot);
    }
    list[slot] = k;
    return list;
  }

  /** Takes position {@code k} out of a port's sorted list of {@code size} entries. */
  private static void unlist(int[] list, int size, int k) {
    int slot = java.util.Arrays.binarySearch(list, 0, size, k);
    System.arraycopy(list, slot + 1, list, slot, size - slot - 1);
  }

  /**
   * In a port's sorted list of {@code size} entries, replaces the last (the highest position, which
   * just moved) by {@code k}, keeping the list sorted.
   */
  private static void relist(int[] list, int size, int k) {
    int slot = -java.util.Arrays.binarySearch(list, 0, size - 1, k) - 1;
    System.arraycopy(list, slot, list, slot + 1, size - 1 - slot);
    list[slot] = k;
  }

  private static int[] append(int[] ports, int size, int port) {
    if (size > ports.length) {
      ports = java.util.Arrays.copyOf(ports, Math.max(size, 2 * ports.length));
    }
    ports[size - 1] = port;
    return ports;
  }

  /** The state moved one of this coflow's active flows to another dense index. */
  void moved(Flow f) {
    activeIndex[f.coflowIndex] = f.index;
  }

  void attach(ClusterState owner) {
    if (state != null && state != owner) {
      throw new IllegalStateException("coflow " + id + " already belongs to another state");
    }
    state = owner;
  }

  /**
   * A counter that changes whenever the coflow's active flows change: one is added or finishes (and
   * with it their order in {@link #activeFlows()}). Between two changes, position {@code k} is the
   * same flow (its dense {@link #activeIndex} may still move).
   */
  public long activeChanges() {
    return activeChanges;
  }

  // The last LOG changes of the active flows, by their number (activeChanges just after them).
  private static final int LOG = 64;
  private final int[] logGone = new int[LOG];
  private final int[] logLast = new int[LOG];
  private final int[] logSrc = new int[LOG];
  private final int[] logDst = new int[LOG];

  private void log(int gone, int last, int src, int dst) {
    int at = (int) (activeChanges % LOG);
    logGone[at] = gone;
    logLast[at] = last;
    logSrc[at] = src;
    logDst[at] = dst;
  }

  /**
   * True if change number {@code change} of the active flows (the value {@link #activeChanges()}
   * took with it) is among the last ones remembered, for {@link #changeGone} and the like.
   */
  public boolean changeKnown(long change) {
    return change > 0 && change <= activeChanges && activeChanges - change < LOG;
  }

  /** The position the flow of a known change left when it finished, or -1 if it was added. */
  public int changeGone(long change) {
    return logGone[(int) (change % LOG)];
  }

  /**
   * For a flow finished, the last position before it left (whose flow then took {@link
   * #changeGone}, if not the same); for a flow added, its position.
   */
  public int changeLast(long change) {
    return logLast[(int) (change % LOG)];
  }

  /** Source port of the flow a known change added or finished. */
  public int changeSrc(long change) {
    return logSrc[(int) (change % LOG)];
  }

  /** Destination port of the flow a known change added or finished. */
  public int changeDst(long change) {
    return logDst[(int) (change % LOG)];
  }

  /**
   * A counter that changes whenever a flow into {@code port} is added or finishes: a policy that
   * keeps something per (coflow, receiver) across decisions knows the receiver's active flows are
   * the same set as when it last saw the same count.
   */
  public int changesTo(int port) {
    return port < changesTo.length ? changesTo[port] : 0;
  }

  /** Number of active flows (the size of {@link #activeFlows()}). */
  public int activeCount() {
    return active.size();
  }

  /**
   * Dense index in the state of the {@code k}-th active flow: {@code activeFlows().get(k).index()}.
   */
  public int activeIndex(int k) {
    return activeIndex[k];
  }

  /** Source port of the {@code k}-th active flow. */
  public int activeSrc(int k) {
    return activeSrc[k];
  }

  /** Destination port of the {@code k}-th active flow. */
  public int activeDst(int k) {
    return activeDst[k];
  }

  /** {@link Flow#remaining()} of the {@code k}-th active flow, without touching the flow object. */
  public double activeRemaining(int k) {
    return state.remainingAt(activeIndex[k]);
  }

  /** {@link Flow#sent()} of the {@code k}-th active flow, without touching the flow object. */
  public double activeSent(int k) {
    return state.sentAt(activeIndex[k]);
  }

  void grow(Flow f, double bytes) {
    sizeTo[f.dst()] += bytes;
    sizeFrom[f.src()] += bytes;
  }

  void addSent(int src, int dst, boolean sizeKnown, double bytes) {
    bytesSent += bytes;
    received[dst] += bytes;
    sentFrom[src] += bytes;
    if (!sizeKnown) {
      sizeTo[dst] += bytes;
      sizeFrom[src] += bytes;
    }
  }

  /** {@link ClusterState#addReceived}: bytes counted per receiver before their flows are. */
  void addReceived(int dst, double bytes) {
    bytesSent += bytes;
    received[dst] += bytes;
  }

  /** {@link ClusterState#settleSent}: the per-sender count of bytes already counted. */
  void addSentFrom(int src, double bytes) {
    sentFrom[src] += bytes;
  }

  /**
   * Bytes this coflow still has to send out of {@code port}, over flows of known size (a flow of
   * unknown size counts as nothing left).
   */
  public double remainingFrom(int port) {
    return activeFlowsFrom(port) > 0 ? Math.max(0, sizeFrom[port] - sentFrom[port]) : 0;
  }

  /** Bytes this coflow still has to deliver to {@code port}, over flows of known size. */
  public double remainingTo(int port) {
    return activeFlowsTo(port) > 0 ? Math.max(0, sizeTo[port] - received[port]) : 0;
  }

  /** Every port this coflow has had a flow out of, in first-seen order (its senders). */
  public List<Integer> senders() {
    return Collections.unmodifiableList(senders);
  }

  /** Number of {@link #senders()}; with {@link #sender(int)}, the same ports without boxing. */
  public int senderCount() {
    return senders.size();
  }

  /** The {@code k}-th of {@link #senders()}. */
  public int sender(int k) {
    return senderPorts[k];
  }

  /** Number of {@link #receivers()}; with {@link #receiver(int)}, the same ports without boxing. */
  public int receiverCount() {
    return receivers.size();
  }

  /** The {@code k}-th of {@link #receivers()}. */
  public int receiver(int k) {
    return receiverPorts[k];
  }

  /** Bytes this coflow's flows have delivered to {@code port} so far (a receiver's view). */
  public double receivedAt(int port) {
    return port < received.length ? received[port] : 0;
  }

  /** Unfinished flows of this coflow out of {@code port}. */
  public int activeFlowsFrom(int port) {
    return port < activeFrom.length ? activeFrom[port] : 0;
  }

  /** Unfinished flows of this coflow into {@code port}. */
  public int activeFlowsTo(int port) {
    return port < activeTo.length ? activeTo[port] : 0;
  }

  /**
   * Positions in {@link #activeFlows()} (for {@link #activeSrc} and the like) of the active flows
   * into {@code port}, in increasing order: the first {@link #activeFlowsTo}{@code (port)} entries
   * of the returned array. Do not modify; valid until the coflow's active flows change.
   */
  public int[] activePositionsTo(int port) {
    int[] list = port < positionsTo.length ? positionsTo[port] : null;
    return list == null ? NO_POSITIONS : list;
  }

  /**
   * Positions in {@link #activeFlows()} of the active flows out of {@code port}, in increasing
   * order: the first {@link #activeFlowsFrom}{@code (port)} entries of the returned array. Do not
   * modify; valid until the coflow's active flows change.
   */
  public int[] activePositionsFrom(int port) {
    int[] list = port < positionsFrom.length ? positionsFrom[port] : null;
    return list == null ? NO_POSITIONS : list;
  }

  private static final int[] NO_POSITIONS = new int[0];

  /** Every port this coflow has had a flow into, in first-seen order (its receivers). */
  public List<Integer> receivers() {
    return Collections.unmodifiableList(receivers);
  }

  void flowFinished(Flow f, double now) {
    int k = f.coflowIndex;
    int dst = f.dst();
    if (f.sizeKnown() && f.sent() < f.size()) {
      // A flow that finished short of its (estimated) size leaves nothing to send: the bytes it
      // never sent come out of its ports' sizes.
      double unsent = f.size() - f.sent();
      sizeTo[dst] -= unsent;
      sizeFrom[f.src()] -= unsent;
    }
    // Out of its receiver's and its sender's lists (the later entries shift down).
    unlist(positionsTo[dst], activeTo[dst]--, k);
    changesTo[dst]++;
    int src = f.src();
    unlist(positionsFrom[src], activeFrom[src]--, k);
    activeChanges++;
    int n = active.size() - 1;
    log(k, n, src, dst);
    Flow last = active.remove(n);
    if (last != f) {
      active.set(k, last);
      last.coflowIndex = k;
      activeIndex[k] = activeIndex[n];
      activeSrc[k] = activeSrc[n];
      activeDst[k] = activeDst[n];
      // The last position moves to k: so do its entries in its receiver's and sender's lists.
      relist(positionsTo[activeDst[k]], activeTo[activeDst[k]], k);
      relist(positionsFrom[activeSrc[k]], activeFrom[activeSrc[k]], k);
    }
    f.coflowIndex = -1;
    unfinished--;
    if (unfinished == 0) {
      finishTime = now;
    }
  }

  @Override
  public String toString() {
    return "Coflow[" + id + ", flows=" + flows.size() + ", sent=" + (long) bytesSent + "]";
  }
}
