package org.coflow.courier.server;

import com.google.protobuf.ByteString;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.api.proto.courier.v1.Auth;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.HelloAck;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.auth.KeyRing;
import org.coflow.courier.auth.Proofs;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameDecoder;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.transport.ConnectionGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accepting side of the handshake. A {@code HELLO} naming an identity the agent holds a secret
 * for is answered with a {@code CHALLENGE} carrying the agent's own proof (of the secret and its
 * host id), and the peer is admitted once its {@code AUTH} proof holds; a {@code HELLO} without an
 * identity is admitted as anonymous only by an agent without secrets ({@link KeyRing#isOpen}).
 * Everything else is refused with an {@code ERROR} frame and the connection closed: unauthenticated
 * peers can do nothing but be refused. Once admitted, another host's agent gets a {@link
 * org.coflow.courier.serve.BlockSender}, a process of this host a {@link ClientSession}, each
 * knowing the peer's principal. Also the connection's last handler: a protocol violation anywhere
 * is answered with an {@code ERROR} frame naming it, then the connection is closed.
 */
final class ServerHandshake extends SimpleChannelInboundHandler<Frame> {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHandshake.class);
  private static final AtomicLong ANONYMOUS = new AtomicLong();

  private final ServerContext server;
  private Hello hello;
  private byte[] nonce;
  private Secret secret;

  ServerHandshake(ServerContext server) {
    this.server = server;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
    frame.release();
    if (hello == null) {
      if (frame.type() != FrameType.HELLO) {
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_PROTOCOL,
            "expected HELLO as the first frame, got " + frame.type());
      }
      hello(ctx, frame.header());
    } else if (frame.type() == FrameType.AUTH && nonce != null) {
      auth(ctx, frame.header());
    } else {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, "expected AUTH after the challenge, got " + frame.type());
    }
  }

  private void hello(ChannelHandlerContext ctx, Hello h) {
    this.hello = h;
    if (h.getHostId().isEmpty() || h.getHostId().length() > 256) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, "HELLO without a host id (or one over 256 characters)");
    }
    if (h.getRole() != Role.ROLE_AGENT && h.getRole() != Role.ROLE_CLIENT) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, "HELLO with unknown role " + h.getRole());
    }
    if (h.getRole() == Role.ROLE_CLIENT && !h.getHostId().equals(server.hostId)) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "a client of host '"
              + shown(h.getHostId())
              + "' connected to the agent of host '"
              + server.hostId
              + "': clients use their own host's agent");
    }
    if (h.getIdentity().isEmpty()) {
      if (!server.keys.isOpen()) {
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_FORBIDDEN,
            "this agent admits only peers that prove a secret it holds; the connection named "
                + "none (configure the cluster's, the application's or the job's secret: "
                + "docs/security.md)");
      }
      if (h.getRole() == Role.ROLE_CLIENT && !server.keys.admitsAnonymousClients()) {
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_FORBIDDEN,
            "this agent admits as local clients only processes that prove a secret it holds "
                + "(its own process's, or a job's token); a client that proves nothing may not use "
                + "it (docs/security.md)");
      }
      // Anonymous connections are told apart by name, and share the relay budget by address.
      java.net.SocketAddress remote = ctx.channel().remoteAddress();
      admit(
          ctx,
          BlockRegistry.ANONYMOUS + ANONYMOUS.incrementAndGet() + "@" + remote,
          BlockRegistry.ANONYMOUS
              + "@"
              + (remote instanceof java.net.InetSocketAddress
                  ? ((java.net.InetSocketAddress) remote).getAddress()
                  : remote));
      return;
    }
    secret = server.keys.find(h.getIdentity());
    if (secret == null || h.getNonce().size() != Proofs.NONCE_BYTES) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_FORBIDDEN,
          "this agent holds no secret for identity '"
              + shown(h.getIdentity())
              + "' (or the HELLO's nonce is not "
              + Proofs.NONCE_BYTES
              + " bytes)");
    }
    nonce = Proofs.nonce();
    ctx.writeAndFlush(
        Frame.of(
            FrameType.CHALLENGE,
            Challenge.newBuilder()
                .setNonce(ByteString.copyFrom(nonce))
                .setHostId(server.hostId)
                .setProof(
                    ByteString.copyFrom(Proofs.server(secret, h, nonce, server.hostId, local(ctx))))
                .build()));
  }

  private void auth(ChannelHandlerContext ctx, Auth a) {
    byte[] expected = Proofs.client(secret, hello, nonce, server.hostId, local(ctx));
    nonce = null;
    if (!Proofs.matches(expected, a.getProof().toByteArray())) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_FORBIDDEN,
          "the proof for identity '"
              + shown(hello.getIdentity())
              + "' is wrong: the peer does not hold this agent's secret for it (or reached this "
              + "agent through a relay)");
    }
    if (hello.getRole() == Role.ROLE_AGENT && !server.keys.mayBeAgent(hello.getIdentity())) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_FORBIDDEN,
          "identity '"
              + shown(hello.getIdentity())
              + "' may connect only as a local client, not as another host's agent");
    }
    admit(ctx, hello.getIdentity(), hello.getIdentity());
  }

  /** A peer's string as it may appear in messages and logs: printable, at most 128 chars. */
  static String shown(String peerValue) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < peerValue.length() && b.length() < 128; i++) {
      char c = peerValue.charAt(i);
      b.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return peerValue.length() > 128 ? b + "..." : b.toString();
  }

  private static java.net.InetSocketAddress local(ChannelHandlerContext ctx) {
    return (java.net.InetSocketAddress) ctx.channel().localAddress();
  }

  /**
   * The peer proved who it is (or the agent is open): what serves it takes over. A local client's
   * streams are held in {@code share}'s part of the relay budget.
   */
  private void admit(ChannelHandlerContext ctx, String principal, String share) {
    ConnectionGate gate = ctx.pipeline().get(ConnectionGate.class);
    if (gate != null) {
      gate.admitted(ctx);
    }
    FrameDecoder decoder = ctx.pipeline().get(FrameDecoder.class);
    if (decoder != null) {
      decoder.admit();
    }
    if (server.limits.idleTimeoutMillis() > 0) {
      ctx.pipeline().addBefore(ctx.name(), "idle", server.idle());
    }
    if (hello.getRole() == Role.ROLE_AGENT) {
      ctx.pipeline()
          .addBefore(ctx.name(), "serve", server.sender(hello.getHostId(), hello.getLane()));
    } else {
      ctx.pipeline().addBefore(ctx.name(), "client", server.session(principal, share));
    }
    ctx.pipeline().remove(this);
    ctx.pipeline().addLast("errors", new ConnectionErrors());
    ctx.writeAndFlush(
        Frame.of(
            FrameType.HELLO_ACK,
            HelloAck.newBuilder()
                .setHostId(server.hostId)
                .setChunkSize(server.chunkSize)
                .setMaxStreams(server.limits.maxStreamsPerConnection())
                .build()));
    LOG.debug(
        "{} connection from host={} principal={} remote={}",
        hello.getRole(),
        hello.getHostId(),
        principal,
        ctx.channel().remoteAddress());
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ConnectionErrors.refuse(ctx, cause);
  }

  /** At most one refusal line a second: a flood of bad peers cannot flood the log. */
  private static final org.coflow.courier.transport.Throttle REFUSALS =
      new org.coflow.courier.transport.Throttle(1000);

  /** Answers a protocol violation with an ERROR frame, then closes; logs other failures. */
  static final class ConnectionErrors extends io.netty.channel.ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      refuse(ctx, cause);
    }

    static void refuse(ChannelHandlerContext ctx, Throwable cause) {
      Throwable c =
          cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
      if (c instanceof ProtocolException) {
        ProtocolException p = (ProtocolException) c;
        long more = REFUSALS.pass();
        if (more >= 0) {
          LOG.warn(
              "remote={}: {}; closing the connection{}",
              ctx.channel().remoteAddress(),
              p.getMessage(),
              more > 0 ? " (" + more + " more refusals since the last such line)" : "");
        } else {
          LOG.debug(
              "remote={}: {}; closing the connection",
              ctx.channel().remoteAddress(),
              p.getMessage());
        }
        if (ctx.channel().isActive()) {
          ctx.writeAndFlush(
                  Frame.of(
                      FrameType.ERROR,
                      Error.newBuilder().setCode(p.code()).setMessage(p.getMessage()).build()))
              .addListener(ChannelFutureListener.CLOSE);
        }
      } else if (c instanceof java.io.IOException) {
        // A peer that reset or vanished: routine, and a crowd of them must not flood the log.
        long more = REFUSALS.pass();
        if (more >= 0) {
          LOG.warn(
              "remote={}: connection failed ({}); closing it{}",
              ctx.channel().remoteAddress(),
              c.getMessage(),
              more > 0 ? " (" + more + " more refusals since the last such line)" : "");
        }
        ctx.close();
      } else {
        LOG.warn("remote={}: connection failed; closing it", ctx.channel().remoteAddress(), c);
        ctx.close();
      }
    }
  }
}
