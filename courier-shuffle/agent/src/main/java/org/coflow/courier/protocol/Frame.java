package org.coflow.courier.protocol;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;

/**
 * One protocol frame: a type, its protobuf header and an optional body.
 *
 * <p>Ownership: a frame owns its body (a {@link ByteBuf} or, for zero-copy sends, a {@link
 * FileRegion}). Writing the frame to a channel passes the body to the channel, which releases it; a
 * frame that is not written must be {@link #release released} by whoever holds it. Frames produced
 * by {@link FrameDecoder} own a retained slice of the received bytes.
 */
public final class Frame {
  private final FrameType type;
  private final MessageLite header;
  private final Object body;
  private final long bodyOffset;

  private Frame(FrameType type, MessageLite header, Object body, long bodyOffset) {
    this.type = type;
    this.header = header;
    this.body = body;
    this.bodyOffset = bodyOffset;
  }

  /** A frame without body. */
  public static Frame of(FrameType type, MessageLite header) {
    return new Frame(type, header, null, 0);
  }

  /** A frame whose body is {@code data} (ownership passes to the frame). */
  public static Frame withBody(FrameType type, MessageLite header, ByteBuf data) {
    return new Frame(type, header, data, 0);
  }

  /** A frame whose body is sent zero-copy from a file (ownership passes to the frame). */
  public static Frame withFile(FrameType type, MessageLite header, FileRegion region) {
    return new Frame(type, header, region, 0);
  }

  /**
   * A piece of a frame's body, from a decoder that passes bodies on as they arrive: {@code data} is
   * the body's bytes from {@code offset} on (ownership passes to the frame).
   */
  public static Frame piece(FrameType type, MessageLite header, ByteBuf data, long offset) {
    return new Frame(type, header, data, offset);
  }

  public FrameType type() {
    return type;
  }

  /** The header, of the message class the type names. */
  @SuppressWarnings("unchecked")
  public <T extends MessageLite> T header() {
    return (T) header;
  }

  /** The body: a {@link ByteBuf}, a {@link FileRegion}, or null. */
  public Object body() {
    return body;
  }

  /** Where in the frame's whole body {@link #body()} starts: 0 unless this is a {@link #piece}. */
  public long bodyOffset() {
    return bodyOffset;
  }

  /** The body's length in bytes (0 without body). */
  public long bodyLength() {
    if (body instanceof ByteBuf) {
      return ((ByteBuf) body).readableBytes();
    }
    if (body instanceof FileRegion) {
      return ((FileRegion) body).count();
    }
    return 0;
  }

  /** Releases the body, for a frame that will not be written. Idempotent per holder. */
  public void release() {
    if (body != null) {
      ReferenceCountUtil.release(body);
    }
  }

  @Override
  public String toString() {
    return type + (body == null ? "" : "+" + bodyLength() + "B");
  }
}
