package org.coflow.courier.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Writes a {@link Frame} as {@code [int32 length][uint8 type][int32 header length][header][body]}.
 * The prefix and header go in one small buffer; the body follows as it is, so a
 * {@link io.netty.channel.FileRegion} body is sent zero-copy.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToMessageEncoder<Frame> {
  public static final FrameEncoder INSTANCE = new FrameEncoder();

  /** Bytes before the header: length, type, header length. */
  static final int PREFIX = 4 + 1 + 4;

  private FrameEncoder() {}

  @Override
  protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
    byte[] header = frame.header().toByteArray();
    long length = 1 + 4 + (long) header.length + frame.bodyLength();
    if (length > Integer.MAX_VALUE) {
      frame.release();
      throw new IllegalArgumentException(frame + " is too long for one frame: " + length + " bytes");
    }
    ByteBuf prefix = ctx.alloc().buffer(PREFIX + header.length);
    prefix.writeInt((int) length).writeByte(frame.type().id()).writeInt(header.length).writeBytes(header);
    out.add(prefix);
    if (frame.body() != null) {
      // Ownership of the body passes to the pipeline (MessageToMessageEncoder releases only the frame).
      out.add(frame.body());
    }
  }
}
