package org.coflow.courier.server;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.HelloAck;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.serve.BlockSender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accepting side's first frame: a {@code HELLO} saying who connects. Another host's agent gets
 * a {@link BlockSender}, a process of this host a {@link ClientSession}; a connection that says
 * anything else first, or a client claiming another host, is refused with an {@code ERROR} frame
 * and closed. Also the connection's last handler: a protocol violation anywhere is answered with an
 * {@code ERROR} frame naming it, then the connection is closed.
 */
final class ServerHandshake extends SimpleChannelInboundHandler<Frame> {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHandshake.class);

  private final String hostId;
  private final BlockRegistry registry;
  private final int chunkSize;
  private final org.coflow.courier.fetch.LocalFetches fetches;
  private final org.coflow.courier.enforce.PriorityPacer link;
  private final org.coflow.courier.enforce.PaceTable paces;

  ServerHandshake(
      String hostId,
      BlockRegistry registry,
      int chunkSize,
      org.coflow.courier.fetch.LocalFetches fetches,
      org.coflow.courier.enforce.PriorityPacer link,
      org.coflow.courier.enforce.PaceTable paces) {
    this.hostId = hostId;
    this.registry = registry;
    this.chunkSize = chunkSize;
    this.fetches = fetches;
    this.link = link;
    this.paces = paces;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
    frame.release();
    if (frame.type() != FrameType.HELLO) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, "expected HELLO as the first frame, got " + frame.type());
    }
    Hello hello = frame.header();
    if (hello.getHostId().isEmpty()) {
      throw new ProtocolException(ErrorCode.ERROR_CODE_PROTOCOL, "HELLO without a host id");
    }
    if (hello.getRole() == Role.ROLE_AGENT) {
      ctx.pipeline()
          .addBefore(
              ctx.name(),
              "serve",
              new BlockSender(registry, chunkSize, link, paces, hello.getHostId()));
    } else if (hello.getRole() == Role.ROLE_CLIENT) {
      if (!hello.getHostId().equals(hostId)) {
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_PROTOCOL,
            "a client of host '"
                + hello.getHostId()
                + "' connected to the agent of host '"
                + hostId
                + "': clients use their own host's agent");
      }
      ctx.pipeline().addBefore(ctx.name(), "client", new ClientSession(registry, fetches));
    } else {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, "HELLO with unknown role " + hello.getRole());
    }
    ctx.pipeline().remove(this);
    ctx.pipeline().addLast("errors", new ConnectionErrors());
    ctx.writeAndFlush(
        Frame.of(
            FrameType.HELLO_ACK,
            HelloAck.newBuilder().setHostId(hostId).setChunkSize(chunkSize).build()));
    LOG.debug(
        "{} connection from host={} remote={}",
        hello.getRole(),
        hello.getHostId(),
        ctx.channel().remoteAddress());
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ConnectionErrors.refuse(ctx, cause);
  }

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
        LOG.warn(
            "remote={}: {}; closing the connection", ctx.channel().remoteAddress(), p.getMessage());
        if (ctx.channel().isActive()) {
          ctx.writeAndFlush(
                  Frame.of(
                      FrameType.ERROR,
                      Error.newBuilder().setCode(p.code()).setMessage(p.getMessage()).build()))
              .addListener(ChannelFutureListener.CLOSE);
        }
      } else {
        LOG.warn("remote={}: connection failed; closing it", ctx.channel().remoteAddress(), c);
        ctx.close();
      }
    }
  }
}
