package org.coflow.courier.transport;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
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
 * and {@link Limits#maxHandshaking}, refuses it with a {@code BUSY} error frame beyond them, and
 * closes it if its handshake has not completed within {@link Limits#handshakeTimeoutMillis}. The
 * handshake calls {@link #admitted} once the peer proved who it is. Shared by all connections of
 * one listening socket.
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

  /** Connections in their handshake, per remote address (one host cannot take every slot). */
  private final java.util.concurrent.ConcurrentHashMap<java.net.InetAddress, Integer> byAddress =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static final class State {
    boolean counted;
    boolean admitted;
    java.net.InetAddress address;
    ScheduledFuture<?> timeout;
  }

  /** Counts {@code s} out of the handshaking connections (once). */
  private void leaveHandshake(State s) {
    if (!s.admitted) {
      s.admitted = true;
      handshaking.decrementAndGet();
      if (s.address != null) {
        byAddress.computeIfPresent(s.address, (a, n) -> n <= 1 ? null : n - 1);
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
    int mine = s.address == null ? 0 : byAddress.merge(s.address, 1, Integer::sum);
    String what = null;
    if (n > limits.maxConnections()) {
      what = n - 1 + " connections are open (coflow.courier.maxConnections)";
    } else if (h > limits.maxHandshaking()) {
      what = h - 1 + " connections are in their handshake (coflow.courier.maxHandshaking)";
    } else if (mine > limits.maxHandshakingPerAddress()) {
      what =
          mine
              - 1
              + " connections from "
              + s.address.getHostAddress()
              + " are in their handshake (coflow.courier.maxHandshakingPerAddress)";
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
                  if (!s.admitted && ctx.channel().isActive()) {
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
      leaveHandshake(s);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    State s = ctx.channel().attr(STATE).get();
    if (s != null && s.counted) {
      s.counted = false;
      open.decrementAndGet();
      leaveHandshake(s);
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
}
