package org.coflow.courier.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.coflow.api.proto.courier.v1.ErrorCode;

/**
 * The first 8 bytes of every connection, from the connecting side: the magic {@code "CFLW"} and a
 * big-endian int32 protocol version. The accepting side checks them with a {@link Check} before any
 * frame is decoded: a peer that does not speak the protocol is closed at once; for a peer of
 * another version the check raises a {@link ProtocolException}, which the connection's error
 * handler answers with an {@link FrameType#ERROR} frame naming both versions before closing.
 */
public final class Preamble {
  public static final int MAGIC = 0x43464C57; // "CFLW"

  /**
   * The protocol version of this release: 3 (segments of partitions as one stream, with a checksum
   * per partition; the reader a block is for); 2 added authentication.
   */
  public static final int VERSION = 3;

  public static final int LENGTH = 8;

  private Preamble() {}

  public static ByteBuf encode(ByteBufAllocator alloc, int version) {
    return alloc.buffer(LENGTH).writeInt(MAGIC).writeInt(version);
  }

  /** Validates the preamble, then removes itself (the frames follow). */
  public static final class Check extends ByteToMessageDecoder {
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (in.readableBytes() < LENGTH) {
        return;
      }
      int magic = in.readInt();
      int version = in.readInt();
      if (magic != MAGIC) {
        in.skipBytes(in.readableBytes());
        ctx.close();
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_PROTOCOL,
            String.format(
                "connection from %s does not speak the Courier protocol (magic 0x%08x, expected 0x%08x)",
                ctx.channel().remoteAddress(), magic, MAGIC));
      }
      if (version != VERSION) {
        in.skipBytes(in.readableBytes());
        // The connection's error handler answers with an ERROR frame naming both versions.
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_UNSUPPORTED_VERSION,
            "protocol version "
                + version
                + " is not supported by this agent, which speaks "
                + VERSION
                + ": run agents and clients of the same release");
      }
      ctx.pipeline().remove(this);
    }
  }
}
