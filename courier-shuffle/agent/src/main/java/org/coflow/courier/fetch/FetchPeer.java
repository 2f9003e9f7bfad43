package org.coflow.courier.fetch;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.flow.FlowKey;
import org.coflow.courier.protocol.ProtocolException;

/**
 * What {@link FetchService} holds per unit that shares connections (a remote host when merging, a
 * coflow's blocks from a host without): its data connections and the blocks waiting for or running
 * on them. Plain state, guarded by the service's lock.
 */
final class FetchPeer {
  final String host;

  /**
   * Where the host's agent is, as the fetches this peer carries named it: blocks naming another
   * address have a peer of their own.
   */
  final InetSocketAddress address;

  /**
   * A stable number, never reused: the plan merges the blocks of peers with one number into one
   * unified flow (see {@link FetchService}'s nextPeerIndex).
   */
  final int index;

  final List<Conn> conns = new ArrayList<>();
  final ArrayDeque<Block> waiting = new ArrayDeque<>();

  /**
   * The latency lane: one more connection, outside the budget, for the flows' first bytes (null
   * until needed), the blocks waiting for it, whether it is being opened, and until when (nanoTime)
   * a lane that could not be opened is not tried again.
   */
  Conn lane;

  final ArrayDeque<Block> laneWaiting = new ArrayDeque<>();
  boolean laneOpening;
  long laneRetryAt;

  /** Bytes of the blocks waiting or running. */
  long outstanding;

  int opening;

  /** Connection attempts in a row that the peer refused as busy. */
  int busyRetries;

  /** Blocks waiting or running, per coflow. */
  final Map<String, Integer> coflows = new HashMap<>();

  /** A peer's key: the unit sharing connections and the address its blocks named. */
  static final class Key {
    final FlowKey unit;
    final InetSocketAddress address;

    Key(FlowKey unit, InetSocketAddress address) {
      this.unit = unit;
      this.address = address;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && ((Key) o).unit.equals(unit) && ((Key) o).address.equals(address);
    }

    @Override
    public int hashCode() {
      return unit.hashCode() * 31 + address.hashCode();
    }
  }

  /** Why a connection to {@code host}'s agent at {@code at} could not be opened. */
  static ProtocolException unreachable(String host, InetSocketAddress at, Throwable error) {
    Throwable cause = error instanceof CompletionException ? error.getCause() : error;
    return cause instanceof ProtocolException
        ? (ProtocolException) cause
        : new ProtocolException(
            ErrorCode.ERROR_CODE_UNREACHABLE,
            "cannot reach the agent of host " + host + " at " + at + ": " + cause,
            cause);
  }

  FetchPeer(String host, InetSocketAddress address, int index) {
    this.host = host;
    this.address = address;
    this.index = index;
  }

  /** Connections that take blocks: open and not draining, or still opening. */
  int usable() {
    int n = opening;
    for (Conn c : conns) {
      if (!c.draining) {
        n++;
      }
    }
    return n;
  }

  /**
   * Whether it has nothing open, opening, waiting or running (an address that could not be reached,
   * or whose connections all closed).
   */
  boolean idle() {
    return conns.isEmpty()
        && opening == 0
        && waiting.isEmpty()
        && laneWaiting.isEmpty()
        && lane == null
        && !laneOpening
        && coflows.isEmpty();
  }

  /** Blocks running on its connections. */
  int running() {
    int n = 0;
    for (Conn c : conns) {
      n += c.running;
    }
    return n;
  }

  /** One data connection to the peer. */
  static final class Conn {
    PeerConnection connection;
    int running;
    boolean draining;

    /**
     * It drains because its peer's split shrank (the peer keeps other connections), not because the
     * peer lost its place or the budget shrank: only these may be outlived by a newcomer's first
     * connection.
     */
    boolean splitShrank;
  }

  /** A block waiting for, or running on, a connection. */
  static final class Block {
    final String coflow;
    final RemoteBlock block;

    /** The caller's sink, tracked; it also says whether the block goes on the peer's lane. */
    TrackedSink sink;

    final long window;
    final boolean autoCredit;
    final Consumer<FetchService.Handle> started;
    final long requested = System.nanoTime();
    Conn conn;

    Block(
        String coflow,
        RemoteBlock block,
        long window,
        boolean autoCredit,
        Consumer<FetchService.Handle> started) {
      this.coflow = coflow;
      this.block = block;
      this.window = window;
      this.autoCredit = autoCredit;
      this.started = started;
    }

    long bytes() {
      return Math.max(0, block.getSize());
    }
  }
}
