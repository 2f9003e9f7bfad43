package org.coflow.courier.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first handler of every accepted connection: counts it against {@link Limits#maxConnections}
 * (beyond which it is refused with a {@code BUSY} error frame), against {@link
 * Limits#maxHandshaking} and {@link Limits#maxHandshakingPerAddress}, and closes it if its
 * handshake has not completed within {@link Limits#handshakeTimeoutMillis}. The handshake calls
 * {@link #admitted} once the peer proved who it is.
 *
 * <p>When the handshake slots are full, a newcomer is not refused: the oldest connection still in
 * its handshake from the address holding the most slots (the newcomer's own, past the per-address
 * bound) is closed to make room. A crowd of silent connections then only ever evicts itself, and a
 * peer that completes its handshake in milliseconds gets in however many wait, unless connections
 * arrive faster than the slots divided by that handshake time (256 slots and 5 ms: 50,000 a
 * second). Refusing newcomers instead let four silent addresses hold every slot for the whole
 * timeout. Shared by all connections of one listening socket.
 */
@ChannelHandler.Sharable
public final class ConnectionGate extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGate.class);
  private static final AttributeKey<State> STATE = AttributeKey.valueOf("courier.gate");

  private static final Throttle REFUSALS = new Throttle(1000);

  private final Limits limits;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger handshaking = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();

  public ConnectionGate(Limits limits) {
    this.limits = limits;
  }

  private static final class State {
    boolean counted;

    /** It no longer counts as handshaking (admitted, evicted or closed); set once. */
    final java.util.concurrent.atomic.AtomicBoolean left =
        new java.util.concurrent.atomic.AtomicBoolean();

    java.net.InetAddress address;
    ScheduledFuture<?> timeout;
  }

  /**
   * Connections in their handshake, oldest first, per remote address (null: an address-less
   * channel); a queue's length is what the address holds of the handshake slots (one host cannot
   * take every slot). Guarded by itself.
   */
  private final Map<java.net.InetAddress, java.util.ArrayDeque<Channel>> waiting =
      new java.util.HashMap<>();

  private final AtomicLong evictions = new AtomicLong();

  /** The oldest handshaking connection from {@code address}, taken out; null if none. */
  private Channel oldest(java.net.InetAddress address) {
    java.util.ArrayDeque<Channel> q = waiting.get(address);
    Channel c = q == null ? null : q.pollFirst();
    if (q != null && q.isEmpty()) {
      waiting.remove(address);
    }
    return c;
  }

  /** The address with the most connections in their handshake. */
  private java.net.InetAddress busiest() {
    java.net.InetAddress best = null;
    int most = -1;
    for (Map.Entry<java.net.InetAddress, java.util.ArrayDeque<Channel>> e : waiting.entrySet()) {
      if (e.getValue().size() > most) {
        most = e.getValue().size();
        best = e.getKey();
      }
    }
    return best;
  }

  /**
   * Closes a connection still in its handshake to make room for a newer one, with a {@code BUSY}
   * error frame (a peer that means it retries). It stops counting at once, not when its close
   * completes, so that a burst of newcomers evicts one connection each and no more.
   */
  private void evict(Channel c) {
    evictions.incrementAndGet();
    State s = c.attr(STATE).get();
    if (s != null) {
      leaveHandshake(c, s);
    }
    long more = REFUSALS.pass();
    if (more >= 0) {
      LOG.warn(
          "remote={}: closed before its handshake completed, to make room for a newer connection"
              + " (coflow.courier.maxHandshaking, coflow.courier.maxHandshakingPerAddress){}",
          c.remoteAddress(),
          more > 0 ? " (" + more + " more refused since the last such line)" : "");
    }
    c.writeAndFlush(
            Frame.of(
                FrameType.ERROR,
                Error.newBuilder()
                    .setCode(ErrorCode.ERROR_CODE_BUSY)
                    .setMessage(
                        "the agent is busy: its handshake slots are full and this connection had"
                            + " not completed its handshake; retry")
                    .build()))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /** Counts {@code s} out of the handshaking connections (once). */
  private void leaveHandshake(Channel channel, State s) {
    if (s.left.compareAndSet(false, true)) {
      handshaking.decrementAndGet();
      synchronized (waiting) {
        java.util.ArrayDeque<Channel> q = waiting.get(s.address);
        if (q != null && q.remove(channel) && q.isEmpty()) {
          waiting.remove(s.address);
        }
      }
      if (s.timeout != null) {
        s.timeout.cancel(false);
      }
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    State s = new State();
    ctx.channel().attr(STATE).set(s);
    int n = open.incrementAndGet();
    int h = handshaking.incrementAndGet();
    s.counted = true;
    java.net.SocketAddress remote = ctx.channel().remoteAddress();
    s.address =
        remote instanceof java.net.InetSocketAddress
            ? ((java.net.InetSocketAddress) remote).getAddress()
            : null;
    String what = null;
    if (n > limits.maxConnections()) {
      what = n - 1 + " connections are open (coflow.courier.maxConnections)";
    } else {
      Channel evicted = null;
      synchronized (waiting) {
        java.util.ArrayDeque<Channel> mine =
            waiting.computeIfAbsent(s.address, a -> new java.util.ArrayDeque<>());
        mine.addLast(ctx.channel());
        if (s.address != null && mine.size() > limits.maxHandshakingPerAddress()) {
          evicted = oldest(s.address);
        } else if (h > limits.maxHandshaking()) {
          evicted = oldest(busiest());
        }
      }
      if (evicted != null) {
        evict(evicted);
      }
    }
    if (what != null) {
      refused.incrementAndGet();
      long more = REFUSALS.pass();
      if (more >= 0) {
        LOG.warn(
            "remote={}: refused, {}{}",
            ctx.channel().remoteAddress(),
            what,
            more > 0 ? " (" + more + " more refused since the last such line)" : "");
      }
      ctx.writeAndFlush(
              Frame.of(
                  FrameType.ERROR,
                  Error.newBuilder()
                      .setCode(ErrorCode.ERROR_CODE_BUSY)
                      .setMessage("the agent is busy: " + what + "; retry later")
                      .build()))
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    s.timeout =
        ctx.executor()
            .schedule(
                () -> {
                  if (!s.left.get() && ctx.channel().isActive()) {
                    long more = REFUSALS.pass();
                    if (more >= 0) {
                      LOG.warn(
                          "remote={}: no completed handshake within {} ms "
                              + "(coflow.courier.handshakeTimeout); closing{}",
                          ctx.channel().remoteAddress(),
                          limits.handshakeTimeoutMillis(),
                          more > 0 ? " (" + more + " more refused since the last such line)" : "");
                    }
                    ctx.close();
                  }
                },
                limits.handshakeTimeoutMillis(),
                TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  /** The connection's peer completed the handshake: it no longer counts as handshaking. */
  public void admitted(ChannelHandlerContext ctx) {
    State s = ctx.channel().attr(STATE).get();
    if (s != null) {
      leaveHandshake(ctx.channel(), s);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    State s = ctx.channel().attr(STATE).get();
    if (s != null && s.counted) {
      s.counted = false;
      open.decrementAndGet();
      leaveHandshake(ctx.channel(), s);
    }
    ctx.fireChannelInactive();
  }

  /** Accepted connections open now. */
  public int open() {
    return open.get();
  }

  /** Connections refused at a bound since the agent started. */
  public long refused() {
    return refused.get();
  }

  /** Connections closed in their handshake to make room for newer ones. */
  public long evictions() {
    return evictions.get();
  }
}
