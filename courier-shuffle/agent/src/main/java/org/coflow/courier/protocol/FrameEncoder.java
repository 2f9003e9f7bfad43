package org.coflow.courier.protocol;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.io.IOException;

/**
 * Writes a {@link Frame} as {@code [int32 length][uint8 type][int32 header length][header][body]}.
 * The prefix and header go in one small buffer; the body follows as it is, so a {@link
 * io.netty.channel.FileRegion} body is sent zero-copy. The frame's promise completes with its last
 * part (the body when there is one): writes on a channel complete in order, and a failed prefix
 * write fails the channel. Other messages pass through.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends ChannelOutboundHandlerAdapter {
  public static final FrameEncoder INSTANCE = new FrameEncoder();

  /** Bytes before the header: length, type, header length. */
  static final int PREFIX = 4 + 1 + 4;

  private FrameEncoder() {}

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof Frame)) {
      ctx.write(msg, promise);
      return;
    }
    Frame frame = (Frame) msg;
    ByteBuf prefix;
    try {
      prefix = prefix(ctx, frame);
    } catch (RuntimeException e) {
      frame.release();
      promise.setFailure(e);
      return;
    }
    if (frame.body() == null) {
      ctx.write(prefix, promise);
    } else {
      // One promise per frame, not one per part and a combiner: this runs for every 64 KiB chunk.
      ctx.write(prefix, ctx.voidPromise());
      ctx.write(frame.body(), promise);
    }
  }

  private static ByteBuf prefix(ChannelHandlerContext ctx, Frame frame) {
    MessageLite header = frame.header();
    int headerLength = header.getSerializedSize();
    long length = 1 + 4 + (long) headerLength + frame.bodyLength();
    if (length > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          frame + " is too long for one frame: " + length + " bytes");
    }
    ByteBuf prefix = ctx.alloc().buffer(PREFIX + headerLength);
    prefix.writeInt((int) length).writeByte(frame.type().id()).writeInt(headerLength);
    // Serialised straight into the buffer: no byte[] per frame.
    try {
      CodedOutputStream coded =
          CodedOutputStream.newInstance(prefix.nioBuffer(prefix.writerIndex(), headerLength));
      header.writeTo(coded);
      coded.checkNoSpaceLeft();
    } catch (IOException | RuntimeException e) {
      prefix.release();
      throw new IllegalStateException(
          frame + ": its header of " + headerLength + " bytes did not serialise", e);
    }
    return prefix.writerIndex(prefix.writerIndex() + headerLength);
  }
}
