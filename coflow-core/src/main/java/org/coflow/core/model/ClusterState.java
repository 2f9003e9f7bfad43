package org.coflow.core.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What the scheduler knows: the fabric, the active coflows (in arrival order) and their active
 * flows. One instance serves the live master (fed by agents' reports) and the simulator (fed by the
 * trace); policies read it and never change it.
 *
 * <p>Active flows are kept in a dense list so that a {@code Schedule} can be a plain array indexed
 * by {@link Flow#index()}. Removing a flow moves the last flow into its slot: positions are stable
 * only between two changes of the state. Not thread-safe: the owner serialises updates and policy
 * runs.
 */
public final class ClusterState {
  private Fabric fabric;
  private final List<Coflow> coflows = new ArrayList<>();
  private final List<Coflow> coflowsView = Collections.unmodifiableList(coflows);
  private final List<Flow> flows = new ArrayList<>();
  private final List<Flow> flowsView = Collections.unmodifiableList(flows);

  /** The (sender, receiver) pairs with active flows, and by pair slot, how many. */
  private final PairIndex pairs = new PairIndex();

  private int[] pairFlows = new int[16];

  /** Per port: active flows it sends, and active flows it receives. */
  private int[] fromPort;

  private int[] toPort;

  // The active flows' numbers, by dense index (structure of arrays): the per-event loops of
  // policies and the simulator read and update these instead of chasing flow objects over the
  // heap. A flow's bytes sent live here while it is active and move into the flow when it ends.
  private int[] srcAt = new int[1024];
  private int[] dstAt = new int[1024];
  private double[] sizeAt = new double[1024];
  private double[] sentAt = new double[1024];
  private Coflow[] coflowAt = new Coflow[1024];

  /** The {@link Coflow#slot()} of each active flow's coflow, by dense index. */
  private int[] slotAt = new int[1024];

  /** The slot of each active flow's (sender, receiver) pair in {@link #pairs}, by dense index. */
  private int[] pairAt = new int[1024];

  /** Slots of finished coflows, for the next coflows to take (a stack), and slots handed out. */
  private int[] freeSlots = new int[16];

  private int freeCount;
  private int slots;
  private long nextFlowId;
  private long membershipVersion;

  public ClusterState(Fabric fabric) {
    this.fabric = fabric;
    this.fromPort = new int[fabric.size()];
    this.toPort = new int[fabric.size()];
  }

  /** Number of active flows port {@code p} sends. */
  public int activeFlowsFrom(int p) {
    return fromPort[p];
  }

  /** Number of active flows port {@code p} receives. */
  public int activeFlowsTo(int p) {
    return toPort[p];
  }

  /** Number of active flows from port {@code src} to port {@code dst}. */
  public int activeFlows(int src, int dst) {
    int k = pairs.find(src, dst);
    return k < 0 ? 0 : pairFlows[k];
  }

  /**
   * Number of (sender, receiver) pairs with active flows. Each has a slot below {@link
   * #pairSlots()}, which it keeps until its last flow finishes: the state keeps per pair what the
   * pairs in use need, not the square of the fabric.
   */
  public int activePairs() {
    return pairs.size();
  }

  /** One past the highest slot a pair has had: slots below it may be free (no flows). */
  public int pairSlots() {
    return pairs.slots();
  }

  /** The sender port of the active pair at {@code slot} (meaningless for a free slot). */
  public int pairSrc(int slot) {
    return pairs.src(slot);
  }

  /** The receiver port of the active pair at {@code slot} (meaningless for a free slot). */
  public int pairDst(int slot) {
    return pairs.dst(slot);
  }

  /**
   * Number of active flows of the pair at {@code slot}: 0 for a free slot below {@link
   * #pairSlots()}.
   */
  public int activeFlowsAt(int slot) {
    return pairFlows[slot];
  }

  /** The slot of the pair of the active flow at dense index {@code i}. */
  public int pairAt(int i) {
    return pairAt[i];
  }

  public Fabric fabric() {
    return fabric;
  }

  /**
   * Replaces the fabric with one of at least as many ports, keeping every coflow and flow on its
   * ports: the live master adds ports as hosts appear and changes capacities as agents declare
   * them. Policies notice the new fabric by identity and resize their per-port state.
   *
   * @throws IllegalArgumentException if {@code next} has fewer ports than the current fabric
   */
  public void setFabric(Fabric next) {
    int n = fabric.size();
    int m = next.size();
    if (m < n) {
      throw new IllegalArgumentException("a fabric can only grow: " + n + " ports, asked for " + m);
    }
    fromPort = Arrays.copyOf(fromPort, m);
    toPort = Arrays.copyOf(toPort, m);
    fabric = next;
    membershipVersion++;
  }

  /** Active (unfinished) coflows in arrival order. */
  public List<Coflow> coflows() {
    return coflowsView;
  }

  /** Active flows; {@code flows().get(f.index()) == f}. */
  public List<Flow> flows() {
    return flowsView;
  }

  /**
   * A counter that changes whenever a coflow arrives, gains a flow or finishes, so that policies
   * which order coflows only on such events (Sincronia) can cache their order. (In the live master
   * a coflow's flows trickle in over several rounds; its order must account for each.)
   */
  public long membershipVersion() {
    return membershipVersion;
  }

  /** Admits a coflow; its arrival must not precede that of the last admitted one. */
  public void addCoflow(Coflow c) {
    if (!coflows.isEmpty()) {
      Coflow last = coflows.get(coflows.size() - 1);
      if (c.arrival() < last.arrival() || (c.arrival() == last.arrival() && c.seq() < last.seq())) {
        throw new IllegalArgumentException(
            "coflow " + c.id() + " arrives before the last admitted coflow " + last.id());
      }
    }
    c.attach(this);
    c.slot = freeCount > 0 ? freeSlots[--freeCount] : slots++;
    c.index = coflows.size();
    coflows.add(c);
    membershipVersion++;
  }

  /**
   * Adds a flow to an admitted coflow.
   *
   * @param size bytes, or {@link Flow#UNKNOWN}
   * @throws IllegalArgumentException for a port outside the fabric or a size of 0 or below (other
   *     than {@link Flow#UNKNOWN})
   */
  public Flow addFlow(Coflow c, int src, int dst, double size, double now) {
    checkPort("source", src, c);
    checkPort("destination", dst, c);
    if (size != Flow.UNKNOWN && !(size > 0)) {
      throw new IllegalArgumentException(
          "coflow "
              + c.id()
              + ": flow "
              + src
              + "->"
              + dst
              + " must have a positive size, got "
              + size);
    }
    Flow f = new Flow(nextFlowId++, this, c, src, dst, size, now);
    int i = flows.size();
    if (i == srcAt.length) {
      int len = 2 * i;
      srcAt = Arrays.copyOf(srcAt, len);
      dstAt = Arrays.copyOf(dstAt, len);
      sizeAt = Arrays.copyOf(sizeAt, len);
      sentAt = Arrays.copyOf(sentAt, len);
      coflowAt = Arrays.copyOf(coflowAt, len);
      slotAt = Arrays.copyOf(slotAt, len);
      pairAt = Arrays.copyOf(pairAt, len);
    }
    srcAt[i] = src;
    dstAt[i] = dst;
    sizeAt[i] = size;
    sentAt[i] = 0;
    coflowAt[i] = c;
    slotAt[i] = c.slot;
    f.index = i;
    flows.add(f);
    c.addFlow(f);
    int k = pairs.add(src, dst);
    if (k >= pairFlows.length) {
      pairFlows = Arrays.copyOf(pairFlows, Math.max(k + 1, 2 * pairFlows.length));
    }
    pairFlows[k]++;
    pairAt[i] = k;
    fromPort[src]++;
    toPort[dst]++;
    membershipVersion++;
    return f;
  }

  private void checkPort(String what, int port, Coflow c) {
    if (port < 0 || port >= fabric.size()) {
      throw new IllegalArgumentException(
          "coflow "
              + c.id()
              + ": "
              + what
              + " port "
              + port
              + " is outside the fabric (ports 0.."
              + (fabric.size() - 1)
              + ")");
    }
  }

  /**
   * Raises an active flow's known size to {@code size} (more of its blocks were asked for after it
   * started, or their sizes were estimates); a smaller or unknown size changes nothing.
   */
  public void growFlow(Flow f, double size) {
    if (f.sizeKnown() && size > f.size()) {
      double more = size - f.size();
      f.grow(size);
      if (!f.finished()) {
        sizeAt[f.index] = size;
        f.coflow().grow(f, more);
      }
    }
  }

  /** Records {@code bytes} more sent by a flow (normally an active one). */
  public void addSent(Flow f, double bytes) {
    if (f.finished()) {
      // Bytes reported after the end count as sent and as size alike: a finished flow has nothing
      // left, whatever it sent.
      f.addSentAfterEnd(bytes);
      f.coflow().addSent(f.src(), f.dst(), false, bytes);
    } else {
      addSentAt(f.index, bytes);
    }
  }

  /** {@link #addSent} of the active flow at dense index {@code i} (no flow object touched). */
  public void addSentAt(int i, double bytes) {
    sentAt[i] += bytes;
    coflowAt[i].addSent(srcAt[i], dstAt[i], sizeAt[i] >= 0, bytes);
  }

  /**
   * Records {@code bytes} more delivered by {@code c}'s active flows into port {@code dst}, without
   * saying which flows sent them: for a simulator that moves flows by group and counts a coflow's
   * bytes per receiver ({@link Coflow#bytesSent()} and {@link Coflow#receivedAt} move at once). The
   * flows' own counts ({@link #sentAt}, {@link Coflow#remainingFrom}) follow when the simulator
   * {@link #settleSent settles} them, at the latest as they finish. Negative bytes take back bytes
   * recorded for a flow that finished before the end of the time they were recorded for. Flows of
   * unknown size grow with their bytes and cannot be counted so.
   */
  public void addReceived(Coflow c, int dst, double bytes) {
    if (c.index < 0 || c.index >= coflows.size() || coflows.get(c.index) != c) {
      throw new IllegalStateException("coflow " + c.id() + " is not active");
    }
    c.addReceived(dst, bytes);
  }

  /**
   * Records {@code bytes} more sent by the active flow at dense index {@code i} that its coflow's
   * totals already count ({@link #addReceived}): the flow's own count and its coflow's per sender.
   *
   * @throws IllegalStateException if the flow's size is unknown
   */
  public void settleSent(int i, double bytes) {
    if (sizeAt[i] < 0) {
      throw new IllegalStateException(
          flows.get(i) + " has no known size: its bytes cannot be counted per receiver first");
    }
    sentAt[i] += bytes;
    coflowAt[i].addSentFrom(srcAt[i], bytes);
  }

  /** Source port of the active flow at dense index {@code i}. */
  public int srcAt(int i) {
    return srcAt[i];
  }

  /** Destination port of the active flow at dense index {@code i}. */
  public int dstAt(int i) {
    return dstAt[i];
  }

  /** Size in bytes of the active flow at dense index {@code i}, or {@link Flow#UNKNOWN}. */
  public double sizeAt(int i) {
    return sizeAt[i];
  }

  /** Bytes sent by the active flow at dense index {@code i}. */
  public double sentAt(int i) {
    return sentAt[i];
  }

  /**
   * Bytes the active flow at dense index {@code i} still has to send, or {@link Flow#UNKNOWN}: the
   * same as {@link Flow#remaining()}.
   */
  public double remainingAt(int i) {
    double size = sizeAt[i];
    return size >= 0 ? Math.max(0, size - sentAt[i]) : Flow.UNKNOWN;
  }

  /**
   * {@link Coflow#slot()} of the coflow of the active flow at dense index {@code i}: loops over
   * flows in index order that keep something per coflow read it here instead of dereferencing the
   * coflow.
   */
  public int slotAt(int i) {
    return slotAt[i];
  }

  /** One more than the largest {@link Coflow#slot()} handed out so far. */
  public int slots() {
    return slots;
  }

  /** Coflow of the active flow at dense index {@code i}. */
  public Coflow coflowAt(int i) {
    return coflowAt[i];
  }

  /**
   * Marks an active flow finished and removes it (and its coflow, if that was its last flow).
   *
   * @return true if the flow's coflow finished with it
   */
  public boolean finishFlow(Flow f, double now) {
    int i = f.index;
    if (i < 0 || flows.get(i) != f) {
      throw new IllegalStateException(f + " is not active");
    }
    f.finishWith(sentAt[i]);
    int n = flows.size() - 1;
    Flow last = flows.remove(n);
    if (last != f) {
      flows.set(i, last);
      last.index = i;
      srcAt[i] = srcAt[n];
      dstAt[i] = dstAt[n];
      sizeAt[i] = sizeAt[n];
      sentAt[i] = sentAt[n];
      coflowAt[i] = coflowAt[n];
      slotAt[i] = slotAt[n];
      int pair = pairAt[i];
      pairAt[i] = pairAt[n];
      pairAt[n] = pair;
      last.coflow().moved(last);
    }
    coflowAt[n] = null;
    f.index = -1;
    fromPort[f.src()]--;
    toPort[f.dst()]--;
    int pair = pairAt[n];
    if (--pairFlows[pair] == 0) {
      pairs.remove(pair);
    }
    Coflow c = f.coflow();
    c.flowFinished(f, now);
    if (c.unfinishedFlows() == 0) {
      coflows.remove(c.index);
      for (int k = c.index; k < coflows.size(); k++) {
        coflows.get(k).index = k;
      }
      c.index = -1;
      if (freeCount == freeSlots.length) {
        freeSlots = Arrays.copyOf(freeSlots, 2 * freeCount);
      }
      freeSlots[freeCount++] = c.slot;
      membershipVersion++;
      return true;
    }
    return false;
  }
}
