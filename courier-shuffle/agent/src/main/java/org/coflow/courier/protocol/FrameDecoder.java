package org.coflow.courier.protocol;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.coflow.api.proto.courier.v1.ErrorCode;

/**
 * Reads frames written by {@link FrameEncoder}. Every length is checked before it is used: a frame
 * longer than {@code maxFrameLength}, a header length outside the frame, an unknown type, a body on
 * a type that has none, or a header that does not parse is a {@link ProtocolException}. A decoded
 * frame owns a retained slice of the input as its body.
 *
 * <p>With {@code streamChunks}, a {@link FrameType#CHUNK} body is not gathered: once its header has
 * arrived, each socket read's share of the body is passed on at once as a piece, a frame with the
 * chunk's header whose {@link Frame#bodyOffset()} says where in the chunk the piece starts (a 64
 * KiB chunk usually spans two reads). The receiver checks and writes the bytes while they are still
 * in the cache and never assembles a chunk from parts; this is what the fetching end of an
 * agent-to-agent connection uses. Other frames are always delivered whole.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  /** What an accepted connection may buffer outside the agent's budget. */
  public static final int FREE = 16 << 10;

  /** Bytes before the header: length, type, header length. */
  private static final int PREFIX = 4 + 1 + 4;

  private final int maxFrameLength;
  private final boolean streamChunks;

  /** Before {@link #admit}: the bound of every frame (the handshake's), else -1. */
  private int handshakeBound = -1;

  /** Where the bytes of incomplete frames are reserved (accepted connections), or null. */
  private MemoryBudget budget;

  private long reserved;

  /** The chunk whose body is arriving (streaming only), null between frames. */
  private MessageLite chunk;

  private long bodyLeft;
  private long bodyOffset;

  /** Set by a malformed frame: the connection is being closed and its input is dropped. */
  private boolean failed;

  /** A decoder that delivers every frame whole. */
  public FrameDecoder(int maxFrameLength) {
    this(maxFrameLength, false);
  }

  /**
   * @param streamChunks pass chunk bodies on as they arrive (see the class comment)
   */
  public FrameDecoder(int maxFrameLength, boolean streamChunks) {
    this.maxFrameLength = maxFrameLength;
    this.streamChunks = streamChunks;
    if (!streamChunks) {
      // Whole chunks span socket reads: gather the reads instead of copying them into one buffer.
      setCumulator(COMPOSITE_CUMULATOR);
    }
  }

  /**
   * A decoder for an accepted connection: until {@link #admit}, no frame may be longer than {@code
   * handshakeBound}; what it buffers of incomplete frames is reserved in {@code budget}, and a read
   * that would cross the budget fails the connection with {@code BUSY}.
   */
  public static FrameDecoder accepting(
      int maxFrameLength, int handshakeBound, MemoryBudget budget) {
    FrameDecoder d = new FrameDecoder(maxFrameLength, false);
    // Requests and registrations, not bulk data: one buffer whose capacity is what it holds.
    d.setCumulator(MERGE_CUMULATOR);
    d.handshakeBound = handshakeBound;
    d.budget = budget;
    return d;
  }

  /** The handshake completed: frames may now be as long as their type allows. */
  public void admit() {
    handshakeBound = -1;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    super.channelRead(ctx, msg);
    if (budget != null && !failed) {
      // The first FREE bytes of every connection are its own (control frames are small, so a
      // peer filling the budget with big unfinished frames cannot starve them); beyond that,
      // what it buffers comes out of the agent's budget.
      long now = Math.max(0, internalBuffer().capacity() - FREE);
      if (!budget.resize(reserved, now)) {
        failed = true;
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_BUSY,
            "the agent holds "
                + budget.used()
                + " bytes of incomplete frames, its cap (coflow.courier.maxBufferedBytes is "
                + budget.cap()
                + "); retry later");
      }
      reserved = now;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    release();
    super.channelInactive(ctx);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    release();
  }

  private void release() {
    if (budget != null && reserved != 0) {
      budget.resize(reserved, 0);
      reserved = 0;
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    try {
      next(in, out);
    } catch (ProtocolException e) {
      // Nothing after a malformed frame can be trusted: drop the rest, now and later.
      failed = true;
      in.skipBytes(in.readableBytes());
      throw e;
    }
  }

  private void next(ByteBuf in, List<Object> out) {
    if (chunk != null) {
      piece(in, out);
      return;
    }
    if (in.readableBytes() < 4) {
      return;
    }
    int at = in.readerIndex();
    long length = in.getUnsignedInt(at);
    if (length > maxFrameLength) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "frame longer than the limit of "
              + maxFrameLength
              + " bytes (coflow.courier.maxFrameSize)");
    }
    if (length < 5) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "frame of " + length + " bytes is shorter than its type and header length");
    }
    if (in.readableBytes() < PREFIX) {
      return;
    }
    int id = in.getUnsignedByte(at + 4);
    FrameType type = FrameType.of(id);
    if (type == null) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "unknown frame type "
              + id
              + " (this agent speaks protocol version "
              + Preamble.VERSION
              + ")");
    }
    long bound = handshakeBound >= 0 ? handshakeBound : type.maxLength(maxFrameLength);
    if (length > bound) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          type
              + " frame of "
              + length
              + " bytes is longer than the "
              + bound
              + " its type may have"
              + (handshakeBound >= 0 ? " before the handshake completed" : ""));
    }
    int headerLength = in.getInt(at + 5);
    long bodyLength = length - 5 - headerLength;
    if (headerLength < 0 || bodyLength < 0) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          type
              + " frame: header length "
              + headerLength
              + " outside the frame's "
              + (length - 5)
              + " remaining bytes");
    }
    if (bodyLength > 0 && !type.hasBody()) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          type + " frame carries a body of " + bodyLength + " bytes; it takes none");
    }
    boolean streamed = streamChunks && type == FrameType.CHUNK && bodyLength > 0;
    if (in.readableBytes() < (streamed ? PREFIX + headerLength : 4 + length)) {
      return;
    }
    MessageLite header = header(type, in, at + PREFIX, headerLength);
    in.skipBytes(PREFIX + headerLength);
    if (streamed) {
      chunk = header;
      bodyLeft = bodyLength;
      bodyOffset = 0;
      piece(in, out);
    } else if (bodyLength == 0) {
      out.add(Frame.of(type, header));
    } else {
      out.add(Frame.withBody(type, header, in.readRetainedSlice((int) bodyLength)));
    }
  }

  /** Passes on what has arrived of the current chunk's body. */
  private void piece(ByteBuf in, List<Object> out) {
    int n = (int) Math.min(bodyLeft, in.readableBytes());
    if (n == 0) {
      return;
    }
    out.add(Frame.piece(FrameType.CHUNK, chunk, in.readRetainedSlice(n), bodyOffset));
    bodyOffset += n;
    bodyLeft -= n;
    if (bodyLeft == 0) {
      chunk = null;
    }
  }

  private static MessageLite header(FrameType type, ByteBuf in, int at, int headerLength) {
    try {
      // Parsed in place (a stream parser would allocate a 4 KiB buffer for every chunk's header).
      return type.parser().parseFrom(in.nioBuffer(at, headerLength));
    } catch (InvalidProtocolBufferException e) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          type + " frame: malformed header (" + e.getMessage() + ")");
    }
  }
}
