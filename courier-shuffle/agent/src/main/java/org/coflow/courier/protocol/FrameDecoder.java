package org.coflow.courier.protocol;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import org.coflow.api.proto.courier.v1.ErrorCode;

/**
 * Reads frames written by {@link FrameEncoder}. Every length is checked before it is used: a
 * frame longer than {@code maxFrameLength}, a header length outside the frame, an unknown type, a
 * body on a type that has none, or a header that does not parse is a {@link ProtocolException}.
 * A decoded frame owns a retained slice of the input as its body.
 */
public final class FrameDecoder extends LengthFieldBasedFrameDecoder {
  private final int maxFrameLength;

  public FrameDecoder(int maxFrameLength) {
    super(maxFrameLength, 0, 4, 0, 4);
    this.maxFrameLength = maxFrameLength;
    // Chunks span socket reads: gather the reads instead of copying them into one buffer.
    setCumulator(COMPOSITE_CUMULATOR);
  }

  @Override
  protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
    ByteBuf frame;
    try {
      frame = (ByteBuf) super.decode(ctx, in);
    } catch (TooLongFrameException e) {
      throw new ProtocolException(ErrorCode.ERROR_CODE_PROTOCOL,
          "frame longer than the limit of " + maxFrameLength + " bytes (coflow.courier.maxFrameSize)");
    }
    if (frame == null) {
      return null;
    }
    try {
      return parse(frame);
    } finally {
      frame.release();
    }
  }

  private static Frame parse(ByteBuf frame) {
    if (frame.readableBytes() < 5) {
      throw new ProtocolException(ErrorCode.ERROR_CODE_PROTOCOL,
          "frame of " + frame.readableBytes() + " bytes is shorter than its type and header length");
    }
    int id = frame.readUnsignedByte();
    FrameType type = FrameType.of(id);
    if (type == null) {
      throw new ProtocolException(ErrorCode.ERROR_CODE_PROTOCOL,
          "unknown frame type " + id + " (this agent speaks protocol version " + Preamble.VERSION + ")");
    }
    int headerLength = frame.readInt();
    if (headerLength < 0 || headerLength > frame.readableBytes()) {
      throw new ProtocolException(ErrorCode.ERROR_CODE_PROTOCOL, type + " frame: header length "
          + headerLength + " outside the frame's " + frame.readableBytes() + " remaining bytes");
    }
    MessageLite header;
    try {
      // Parsed in place (a stream parser would allocate a 4 KiB buffer for every chunk's header).
      header = type.parser().parseFrom(frame.nioBuffer(frame.readerIndex(), headerLength));
    } catch (InvalidProtocolBufferException e) {
      throw new ProtocolException(ErrorCode.ERROR_CODE_PROTOCOL,
          type + " frame: malformed header (" + e.getMessage() + ")");
    }
    frame.skipBytes(headerLength);
    if (!frame.isReadable()) {
      return Frame.of(type, header);
    }
    if (!type.hasBody()) {
      throw new ProtocolException(ErrorCode.ERROR_CODE_PROTOCOL,
          type + " frame carries a body of " + frame.readableBytes() + " bytes; it takes none");
    }
    return Frame.withBody(type, header, frame.readRetainedSlice(frame.readableBytes()));
  }
}
