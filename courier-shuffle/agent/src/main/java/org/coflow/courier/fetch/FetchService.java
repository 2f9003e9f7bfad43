package org.coflow.courier.fetch;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.core.merge.ConnectionPlan;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.enforce.PriorityPacer;
import org.coflow.courier.flow.FlowKey;
import org.coflow.courier.flow.PairSchedule;
import org.coflow.courier.metrics.DataPlaneMetrics;
import org.coflow.courier.protocol.HostPort;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.transport.TransportContext;

/**
 * An agent's fetching side. All blocks this host fetches from one remote host, for every local
 * client and coflow, form that host pair's unified flow (Courier Alg. 2). Which unified flows get
 * connections, and how many, is Courier Alg. 3 ({@link SelectAndSplit}), re-run whenever a block is
 * requested or ends ({@link ConnectionPlan}): at most {@code maxNum} data connections in all; with
 * more peers than that, the most important unified flows (best coflow priority, then most bytes) go
 * first and the others wait; with fewer, the most important ones above {@code minSize} are split
 * over several connections (their blocks spread over them). A connection is never closed under a
 * running block: one that lost its place drains first, and no new connection opens while the budget
 * is spent. Thread-safe.
 */
public final class FetchService implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FetchService.class);

  private final LongAdder received = new LongAdder();
  private final DataPlaneMetrics metrics = new DataPlaneMetrics();
  private final TransportContext transport;

  /** A peer that refuses a connection as busy is tried again this often, this many times. */
  private static final long BUSY_RETRY_MILLIS = 500;

  private static final int BUSY_RETRIES = 40;

  private final String hostId;
  private final long window;

  /** The connection budget; changed at run time by an adaptive controller. Guarded by this. */
  private int maxNum;

  private final double minSize;

  /**
   * Whether all blocks from one host share the host pair's connections (Courier's merging, the
   * default) or each flow (a coflow's blocks from one host) has connections of its own, as without
   * Courier: the comparison the testbed makes with the same agents and schedules.
   */
  private final boolean merge;

  private final FetchSchedules schedules =
      new FetchSchedules(this::replannedConnections, this::connectionsCarrying);

  private final FlowTracker flows;

  /**
   * By unit (who shares connections: a host when merging, a coflow's blocks from a host without)
   * and address: a unit's blocks at another address (a client naming the host somewhere else, right
   * or wrong) go to a peer of their own, so that a claim about where a host is never changes what
   * the clients that named its true address are served. Guarded by this.
   */
  private final Map<FetchPeer.Key, FetchPeer> peers = new LinkedHashMap<>();

  private int open;
  private int highWater;

  /**
   * The next peer's stable number (never reused: without merging, peers come and go, and two with
   * one number would be merged into one unified flow by the plan).
   */
  private int nextPeerIndex;

  /** Connections closed by the plan whose sockets have not closed yet. Guarded by this. */
  private final Set<FetchPeer.Conn> closing = new java.util.HashSet<>();

  private PriorityPacer receive = PriorityPacer.UNLIMITED;

  private final LatencyLanes lanes = new LatencyLanes(this, metrics);

  /** The service closed: connections that open now are closed at once. Guarded by this. */
  private boolean closed;

  /**
   * Sends each flow's first {@code bytes} (a flow: a coflow's blocks from one host, counted from
   * when it was last idle) on a latency lane ({@link LatencyLanes}): one connection per peer
   * outside the MaxNum budget. 0: no lane. Only when merging (without it every flow has connections
   * of its own).
   */
  public synchronized void lane(long bytes) {
    lanes.bytes(bytes);
  }

  /** Caps what this host receives (all its connections together). */
  public synchronized void receiveCap(LinkRate cap) {
    this.receive = new PriorityPacer(cap, transport.group().next());
  }

  /**
   * @param window bytes a stream may have in flight between agents before it waits for credit
   * @param maxNum the most data connections this host's agent holds (Courier's MaxNum)
   * @param minSize unified flows of at most this many bytes are never split (Courier's MinSize)
   * @param merge false: every flow (coflow, source host) gets connections of its own instead of
   *     sharing its host pair's (Courier off, scheduling on)
   */
  public FetchService(
      TransportContext transport,
      String hostId,
      long window,
      int maxNum,
      double minSize,
      boolean merge) {
    if (maxNum < 1) {
      throw new IllegalArgumentException("MaxNum must be at least 1, got " + maxNum);
    }
    this.transport = transport;
    this.hostId = hostId;
    this.window = window;
    this.maxNum = maxNum;
    this.minSize = minSize;
    this.merge = merge;
    this.flows = new FlowTracker(hostId);
  }

  /** Who shares connections with {@code coflow}'s blocks from {@code host}. */
  private FlowKey unit(String coflow, String host) {
    return FlowKey.of(merge ? "" : coflow, host);
  }

  /** What the agent's data plane measured (shared with its serving side). */
  public DataPlaneMetrics metrics() {
    return metrics;
  }

  /** The flows this service fetches, for the master. */
  public FlowTracker flows() {
    return flows;
  }

  /** A stream being fetched: where to grant credit or cancel it. */
  public static final class Handle {
    private final PeerConnection peer;
    private final long stream;

    Handle(PeerConnection peer, long stream) {
      this.peer = peer;
      this.stream = stream;
    }

    public void grant(long bytes) {
      peer.grant(stream, bytes);
    }

    public void cancel() {
      peer.cancel(stream);
    }
  }

  /**
   * Fetches one remote block into {@code sink}; {@code started} receives the stream's handle once
   * it is requested (never, if the remote agent cannot be reached: the sink fails instead).
   *
   * @param streamWindow bytes in flight before credit; 0 for the agent's default
   */
  public void fetch(
      String coflowId,
      RemoteBlock block,
      BlockSink sink,
      long streamWindow,
      boolean autoCredit,
      Consumer<Handle> started) {
    InetSocketAddress address;
    try {
      address = HostPort.parse(block.getAgentAddress(), "agent address").toAddress();
    } catch (IllegalArgumentException e) {
      sink.fail(
          new ProtocolException(
              ErrorCode.ERROR_CODE_INVALID,
              "block " + block.getBlock().getBlock() + ": " + e.getMessage(),
              e));
      return;
    }
    FlowKey key = FlowKey.of(coflowId, block.getHostId());
    flows.requested(key, block);
    long w = streamWindow > 0 ? streamWindow : window;
    synchronized (this) {
      FetchPeer p =
          peers.computeIfAbsent(
              new FetchPeer.Key(unit(coflowId, block.getHostId()), address),
              k -> new FetchPeer(block.getHostId(), address, nextPeerIndex++));
      FetchPeer.Block b = new FetchPeer.Block(coflowId, block, w, autoCredit, started);
      b.sink = new TrackedSink(sink, block, key, flows, received, metrics, () -> ended(b, p));
      b.sink.lane = merge && lanes.admits(key, p, block.getSize());
      (b.sink.lane ? p.laneWaiting : p.waiting).add(b);
      p.outstanding += b.bytes();
      p.coflows.merge(coflowId, 1, Integer::sum);
      plan();
    }
  }

  /**
   * Courier Alg. 3 over the current unified flows ({@link ConnectionPlan}), then drains, opens and
   * dispatches.
   */
  private void plan() {
    // Peers are keyed by the address clients name: keeping idle ones would let the map grow
    // with every address ever named.
    peers.values().removeIf(FetchPeer::idle);
    List<ConnectionPlan.Peer<FetchPeer>> state = new ArrayList<>();
    for (FetchPeer p : peers.values()) {
      boolean busy = !p.waiting.isEmpty() || p.running() > 0;
      state.add(new ConnectionPlan.Peer<>(p, p.index, p.outstanding, order(p), busy, p.usable()));
    }
    ConnectionPlan<FetchPeer> plan = ConnectionPlan.plan(state, maxNum, minSize);
    for (FetchPeer p : peers.values()) {
      int drain = plan.drain(p);
      boolean keeps = plan.wanted(p) > 0;
      for (int i = p.conns.size() - 1; i >= 0 && drain > 0; i--) {
        FetchPeer.Conn c = p.conns.get(i);
        if (!c.draining) {
          c.draining = true;
          c.splitShrank = keeps;
          drain--;
        }
      }
      closeDrained(p);
    }
    drainBeyondBudget(plan);
    int splitsDraining = splitsDraining();
    for (FetchPeer p : peers.values()) {
      int n = ConnectionPlan.toOpen(plan.wanted(p), p.usable(), open, maxNum);
      if (n == 0 && p.usable() == 0 && plan.wanted(p) > 0 && open - splitsDraining < maxNum) {
        // A peer without a connection does not wait for another peer's split connection to
        // drain (its blocks may run for seconds): it opens its first one now, and the host holds
        // one more than MaxNum until the split connection closes.
        n = 1;
        splitsDraining--;
      }
      for (; n > 0; n--) {
        openConnection(p);
      }
      dispatch(p);
      lanes.dispatch(p);
    }
  }

  /** Opens a latency lane to {@code p}, capped as everything this host receives is. */
  CompletableFuture<PeerConnection> openLane(FetchPeer p) {
    PriorityPacer cap = receive;
    return PeerConnection.open(transport, hostId, p.host, p.address, 0, window, true)
        .thenApply(
            conn -> {
              conn.receiveCap(cap);
              return conn;
            });
  }

  /** Whether the service closed (guarded by this). */
  boolean isClosed() {
    return closed;
  }

  /** Plans again now, unless the service closed. */
  synchronized void replan() {
    if (!closed) {
      plan();
    }
  }

  /** Plans again on the event loop: a close the plan itself started may be on this call stack. */
  void replanLater() {
    try {
      transport.group().execute(this::replan);
    } catch (java.util.concurrent.RejectedExecutionException shutDown) {
      // the agent is closing: nothing more to plan
    }
  }

  /**
   * Connections draining because their peer's split shrank, of peers that keep another one: splits
   * on their way out. A connection drained because its peer lost its place does not count, even
   * once the peer has a new one: a newcomer that outlived it would take the host past MaxNum.
   */
  private int splitsDraining() {
    int n = 0;
    for (FetchPeer p : peers.values()) {
      if (p.usable() == 0) {
        continue; // it lost its place since: none of its connections is a split any more
      }
      for (FetchPeer.Conn c : p.conns) {
        if (c.draining && c.splitShrank) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * After the budget shrank: connections beyond it drain (those of peers above their share first),
   * so that the host holds at most {@code maxNum} once their running blocks end.
   */
  private void drainBeyondBudget(ConnectionPlan<FetchPeer> plan) {
    int over = -maxNum;
    for (FetchPeer p : peers.values()) {
      over += p.usable();
    }
    for (FetchPeer p : peers.values()) {
      for (int i = p.conns.size() - 1; i >= 0 && over > 0 && p.usable() > plan.wanted(p); i--) {
        FetchPeer.Conn c = p.conns.get(i);
        if (!c.draining) {
          c.draining = true;
          over--;
        }
      }
      closeDrained(p);
    }
  }

  /** The unified flow's order: the best priority among the coflows it carries. */
  private int order(FetchPeer p) {
    int best = Integer.MAX_VALUE;
    for (String coflow : p.coflows.keySet()) {
      best = Math.min(best, schedules.priority(coflow));
    }
    return best == Integer.MAX_VALUE ? 0 : Math.max(0, best);
  }

  private void openConnection(FetchPeer p) {
    LOG.debug("opening remote={} open={} maxNum={}", p.host, open, maxNum);
    open++;
    highWater = Math.max(highWater, open);
    p.opening++;
    int index = p.conns.size() + p.opening - 1;
    InetSocketAddress at = p.address;
    PeerConnection.open(transport, hostId, p.host, at, index, window, false)
        .whenComplete(
            (conn, error) -> {
              synchronized (this) {
                p.opening--;
                if (error != null) {
                  open--;
                  ProtocolException failure = FetchPeer.unreachable(p.host, at, error);
                  if (failure.code() == ErrorCode.ERROR_CODE_BUSY
                      && p.busyRetries < BUSY_RETRIES
                      && !p.waiting.isEmpty()) {
                    // The peer is at a bound (its handshake slots, say): nothing was done, so
                    // the waiting blocks wait on and the connection is tried again shortly.
                    p.busyRetries++;
                    transport
                        .group()
                        .schedule(
                            this::replan,
                            BUSY_RETRY_MILLIS,
                            java.util.concurrent.TimeUnit.MILLISECONDS);
                    return;
                  }
                  List<FetchPeer.Block> failed = new ArrayList<>(p.waiting);
                  p.waiting.clear();
                  for (FetchPeer.Block b : failed) {
                    b.sink.fail(failure);
                  }
                  return;
                }
                p.busyRetries = 0;
                FetchPeer.Conn c = new FetchPeer.Conn();
                c.connection = conn;
                conn.receiveCap(receive);
                p.conns.add(c);
                conn.onClose(() -> connectionClosed(p, c));
                plan();
              }
            });
  }

  private void connectionClosed(FetchPeer p, FetchPeer.Conn c) {
    synchronized (this) {
      if (!p.conns.remove(c) && !closing.remove(c)) {
        return;
      }
      open--;
    }
    replanLater();
  }

  /** Hands waiting blocks to the peer's usable connections, least busy first. */
  private void dispatch(FetchPeer p) {
    while (!p.waiting.isEmpty()) {
      FetchPeer.Conn best = null;
      for (FetchPeer.Conn c : p.conns) {
        if (!c.draining
            && c.connection.isOpen()
            && c.running < c.connection.maxStreams()
            && (best == null || c.running < best.running)) {
          best = c;
        }
      }
      if (best == null) {
        return;
      }
      start(p, p.waiting.poll(), best);
    }
  }

  /** Requests block {@code b} on connection {@code c}. */
  void start(FetchPeer p, FetchPeer.Block b, FetchPeer.Conn c) {
    long waited = System.nanoTime() - b.requested;
    metrics.dispatchWait.recordNanos(waited);
    if (b.sink.lane) {
      metrics.laneDispatchWait.recordNanos(waited);
    }
    metrics.streams.increment();
    b.conn = c;
    c.running++;
    // The whole pair's rate: the serving agent paces it across all our connections together.
    PairSchedule s = schedules.forRequest(FlowKey.of(b.coflow, p.host));
    b.started.accept(
        new Handle(
            c.connection,
            c.connection.fetch(
                b.coflow,
                b.block.getBlock(),
                b.sink,
                b.window,
                b.autoCredit,
                s.priority(),
                s.rate(),
                b.block.getReader())));
  }

  /**
   * Closes the drained connections that run nothing. A closing connection still counts against the
   * budget until its socket is closed ({@link #connectionClosed}): otherwise its replacement could
   * open while it lingers, and the host would hold one more than {@code maxNum}.
   */
  private void closeDrained(FetchPeer p) {
    for (int i = p.conns.size() - 1; i >= 0; i--) {
      FetchPeer.Conn c = p.conns.get(i);
      if (c.draining && c.running == 0) {
        p.conns.remove(i);
        closing.add(c);
        LOG.debug("closing remote={} open={} maxNum={}", p.host, open, maxNum);
        c.connection.close();
      }
    }
  }

  private synchronized void ended(FetchPeer.Block b, FetchPeer p) {
    p.outstanding -= b.bytes();
    p.coflows.computeIfPresent(b.coflow, (k, n) -> n == 1 ? null : n - 1);
    if (b.conn != null) {
      b.conn.running--;
    } else if (!p.waiting.remove(b)) {
      p.laneWaiting.remove(b);
    }
    if (!p.coflows.containsKey(b.coflow)) {
      lanes.idle(FlowKey.of(b.coflow, p.host));
    }
    if (!merge && p.waiting.isEmpty() && p.coflows.isEmpty() && p.opening == 0) {
      // Without merging a connection belongs to one flow: it ends with the flow's last block.
      for (FetchPeer.Conn c : p.conns) {
        c.draining = true;
      }
      closeDrained(p);
      if (p.conns.isEmpty()) {
        peers.values().remove(p);
      }
    }
    plan();
  }

  private synchronized List<PeerConnection> replannedConnections() {
    plan();
    return connectionsOf(null);
  }

  private synchronized List<PeerConnection> connectionsCarrying(FlowKey key) {
    return connectionsOf(unit(key.coflow(), key.peer()));
  }

  /** The data connections of the peers of {@code unit} (null: of every peer). */
  private List<PeerConnection> connectionsOf(FlowKey unit) {
    List<PeerConnection> conns = new ArrayList<>();
    for (Map.Entry<FetchPeer.Key, FetchPeer> e : peers.entrySet()) {
      if (unit == null || e.getKey().unit.equals(unit)) {
        for (FetchPeer.Conn c : e.getValue().conns) {
          conns.add(c.connection);
        }
      }
    }
    return conns;
  }

  /** The priorities and paces of what this service fetches. */
  public FetchSchedules schedules() {
    return schedules;
  }

  /** The most data connections this service holds at once (MaxNum). */
  public synchronized int maxNum() {
    return maxNum;
  }

  /**
   * Changes the connection budget: a larger one opens connections for waiting or splittable flows
   * at once, a smaller one drains connections beyond it (never under a running block).
   */
  public synchronized void maxNum(int budget) {
    if (budget < 1) {
      throw new IllegalArgumentException("MaxNum must be at least 1, got " + budget);
    }
    if (budget != maxNum) {
      maxNum = budget;
      plan();
    }
  }

  /** Whether blocks wait for a connection that the budget does not allow (the budget binds). */
  public synchronized boolean budgetBinds() {
    if (open < maxNum) {
      return false;
    }
    for (FetchPeer p : peers.values()) {
      if (!p.waiting.isEmpty() && p.usable() == 0) {
        return true;
      }
    }
    return false;
  }

  /** Data connections open (or opening) now. */
  public synchronized int connections() {
    return open;
  }

  /** The most data connections ever open at once. */
  public synchronized int maxConnections() {
    return highWater;
  }

  /** Data connections open now to {@code host}. */
  public synchronized int connectionsTo(String host) {
    int n = 0;
    for (FetchPeer p : peers.values()) {
      if (p.host.equals(host)) {
        n += p.conns.size() + p.opening;
      }
    }
    return n;
  }

  /** Bytes that arrived from other hosts' agents since the start. */
  public long bytesReceived() {
    return received.sum();
  }

  /** Latency lanes open or opening now (one per peer at most, outside the budget). */
  public synchronized int lanes() {
    return lanes.count();
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (FetchPeer p : peers.values()) {
      if (p.lane != null) {
        p.lane.connection.close();
      }
      for (FetchPeer.Conn c : p.conns) {
        c.connection.close();
      }
    }
    peers.clear();
  }
}
