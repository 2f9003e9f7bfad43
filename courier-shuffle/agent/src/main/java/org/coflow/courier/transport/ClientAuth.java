package org.coflow.courier.transport;

import com.google.protobuf.ByteString;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.coflow.api.proto.courier.v1.Auth;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.HelloAck;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Proofs;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;

/**
 * The connecting side of the handshake, between the codec and the caller's handler: it answers the
 * acceptor's {@code CHALLENGE} once the acceptor proved it holds the secret <em>and</em> is the
 * host the caller meant to reach, and passes the {@code HELLO_ACK} on. The caller's handler sees
 * either the {@code HELLO_ACK} of a verified acceptor or an {@code ERROR} frame saying why not (the
 * connection is then closed); nothing else reaches it before the handshake ends.
 *
 * <p>With credentials, an acceptor that acknowledges without challenging is refused: it proved
 * nothing, so it may not be the host's agent. Without credentials, a challenge is refused (the
 * acceptor wants a secret this side does not have).
 */
final class ClientAuth extends SimpleChannelInboundHandler<Frame> {
  private final Credentials credentials;
  private final Hello hello;
  private final String expectedHost;
  private boolean challenged;

  /** How long the acceptor has to complete the handshake once connected. */
  static final long TIMEOUT_MILLIS = 10_000;

  private io.netty.util.concurrent.ScheduledFuture<?> timeout;

  ClientAuth(Credentials credentials, Hello hello, String expectedHost) {
    super(false);
    this.credentials = credentials;
    this.hello = hello;
    this.expectedHost = expectedHost;
  }

  /** An acceptor that never completes the handshake (a tarpit) is given up on. */
  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    timeout =
        ctx.executor()
            .schedule(
                () ->
                    refuse(
                        ctx,
                        "the agent at "
                            + ctx.channel().remoteAddress()
                            + " did not complete the handshake within "
                            + TIMEOUT_MILLIS
                            + " ms"),
                TIMEOUT_MILLIS,
                java.util.concurrent.TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (timeout != null) {
      timeout.cancel(false);
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
    switch (frame.type()) {
      case CHALLENGE:
        frame.release();
        challenge(ctx, frame.header());
        return;
      case HELLO_ACK:
        HelloAck ack = frame.header();
        if (credentials.present() && !challenged) {
          frame.release();
          refuse(
              ctx,
              "the agent at "
                  + ctx.channel().remoteAddress()
                  + " acknowledged without proving it holds the secret of '"
                  + credentials.identity()
                  + "': it is not an agent of this cluster (or runs without a secret)");
          return;
        }
        if (expectedHost != null && !expectedHost.equals(ack.getHostId())) {
          frame.release();
          refuse(
              ctx,
              "the agent at "
                  + ctx.channel().remoteAddress()
                  + " is the agent of host '"
                  + ack.getHostId()
                  + "', not of '"
                  + expectedHost
                  + "'");
          return;
        }
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(frame);
        return;
      default:
        // ERROR frames and anything out of order go on to the caller, which fails on them.
        ctx.fireChannelRead(frame);
    }
  }

  private void challenge(ChannelHandlerContext ctx, Challenge c) {
    if (!credentials.present()) {
      refuse(
          ctx,
          "the agent at "
              + ctx.channel().remoteAddress()
              + " requires authentication and this process has no secret: configure the same "
              + "secret as the agent (docs/security.md)");
      return;
    }
    if (challenged) {
      refuse(ctx, "the agent at " + ctx.channel().remoteAddress() + " challenged twice");
      return;
    }
    challenged = true;
    if (expectedHost != null && !expectedHost.equals(c.getHostId())) {
      refuse(
          ctx,
          "the agent at "
              + ctx.channel().remoteAddress()
              + " says it is host '"
              + c.getHostId()
              + "', not '"
              + expectedHost
              + "'");
      return;
    }
    byte[] nonce = c.getNonce().toByteArray();
    java.net.InetSocketAddress dialled = (java.net.InetSocketAddress) ctx.channel().remoteAddress();
    byte[] expected = Proofs.server(credentials.secret(), hello, nonce, c.getHostId(), dialled);
    if (nonce.length != Proofs.NONCE_BYTES
        || !Proofs.matches(expected, c.getProof().toByteArray())) {
      refuse(
          ctx,
          "the agent at "
              + ctx.channel().remoteAddress()
              + " claiming host '"
              + c.getHostId()
              + "' failed to prove it holds the secret of '"
              + credentials.identity()
              + "' on this connection (a wrong secret, or a relay between us and the agent)");
      return;
    }
    ctx.writeAndFlush(
        Frame.of(
            FrameType.AUTH,
            Auth.newBuilder()
                .setProof(
                    ByteString.copyFrom(
                        Proofs.client(credentials.secret(), hello, nonce, c.getHostId(), dialled)))
                .build()));
  }

  /** Tells the caller's handler why, as an ERROR frame from the acceptor would, and closes. */
  private void refuse(ChannelHandlerContext ctx, String why) {
    if (ctx.isRemoved()) {
      return;
    }
    ctx.pipeline().remove(this);
    ctx.fireChannelRead(
        Frame.of(
            FrameType.ERROR,
            Error.newBuilder().setCode(ErrorCode.ERROR_CODE_FORBIDDEN).setMessage(why).build()));
    ctx.close();
  }
}
