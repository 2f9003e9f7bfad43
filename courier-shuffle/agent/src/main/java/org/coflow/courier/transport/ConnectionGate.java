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

  private final Limits limits;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger handshaking = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();

  public ConnectionGate(Limits limits) {
    this.limits = limits;
  }

  private static final class State {
    boolean counted;
    boolean admitted;
    ScheduledFuture<?> timeout;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    State s = new State();
    ctx.channel().attr(STATE).set(s);
    int n = open.incrementAndGet();
    int h = handshaking.incrementAndGet();
    s.counted = true;
    if (n > limits.maxConnections() || h > limits.maxHandshaking()) {
      refused.incrementAndGet();
      String what =
          n > limits.maxConnections()
              ? n - 1 + " connections are open (coflow.courier.maxConnections)"
              : h - 1 + " connections are in their handshake (coflow.courier.maxHandshaking)";
      LOG.warn("remote={}: refused, {}", ctx.channel().remoteAddress(), what);
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
                    LOG.warn(
                        "remote={}: no completed handshake within {} ms "
                            + "(coflow.courier.handshakeTimeout); closing",
                        ctx.channel().remoteAddress(),
                        limits.handshakeTimeoutMillis());
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
    if (s != null && !s.admitted) {
      s.admitted = true;
      handshaking.decrementAndGet();
      if (s.timeout != null) {
        s.timeout.cancel(false);
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    State s = ctx.channel().attr(STATE).get();
    if (s != null && s.counted) {
      s.counted = false;
      open.decrementAndGet();
      if (!s.admitted) {
        s.admitted = true;
        handshaking.decrementAndGet();
      }
      if (s.timeout != null) {
        s.timeout.cancel(false);
      }
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
