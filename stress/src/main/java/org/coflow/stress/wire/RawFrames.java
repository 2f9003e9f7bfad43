package org.coflow.stress.wire;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.Preamble;

/**
 * The Courier wire format as plain bytes, for tools that must send what no well-behaved peer would
 * ({@code bench fuzz}, {@code bench load}): frames with any length, type and header length, and a
 * parser of what an agent answers that trusts nothing it reads.
 *
 * <p>A frame is {@code [int32 length][uint8 type][int32 header length][header][body]} with {@code
 * length} counting everything after itself ({@code courier.proto}).
 */
public final class RawFrames {
  /** Bytes before a frame's header: length, type, header length. */
  public static final int PREFIX = 4 + 1 + 4;

  /** The longest frame an agent sends before a handshake completes (its ERROR and CHALLENGE). */
  private static final int MAX_REPLY_FRAME = 64 << 10;

  private RawFrames() {}

  /** The preamble this release speaks. */
  public static byte[] preamble() {
    return preamble(Preamble.MAGIC, Preamble.VERSION);
  }

  public static byte[] preamble(int magic, int version) {
    return ByteBuffer.allocate(Preamble.LENGTH).putInt(magic).putInt(version).array();
  }

  /** A well-formed frame of {@code type} without body. */
  public static byte[] frame(FrameType type, MessageLite header) {
    return frame(type.id(), header.toByteArray(), new byte[0]);
  }

  /** A frame whose lengths agree with what it carries. */
  public static byte[] frame(int type, byte[] header, byte[] body) {
    return frame(1L + 4 + header.length + body.length, type, header.length, header, body);
  }

  /**
   * A frame that says what the caller wants: {@code length} (taken modulo 2^32) and {@code
   * headerLength} are written as given, whatever {@code header} and {@code body} hold.
   */
  public static byte[] frame(long length, int type, int headerLength, byte[] header, byte[] body) {
    return ByteBuffer.allocate(PREFIX + header.length + body.length)
        .putInt((int) length)
        .put((byte) type)
        .putInt(headerLength)
        .put(header)
        .put(body)
        .array();
  }

  /** Concatenates byte arrays. */
  public static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  /** One frame an agent sent: its type id and header bytes (bodies are not kept). */
  public record Reply(int type, byte[] header) {
    /** The ERROR frame's message, or null if this is no ERROR frame or it does not parse. */
    public Error error() {
      return type == FrameType.ERROR.id() ? parse(Error.parser()) : null;
    }

    /** The CHALLENGE frame's message, or null. */
    public Challenge challenge() {
      return type == FrameType.CHALLENGE.id() ? parse(Challenge.parser()) : null;
    }

    private <T> T parse(com.google.protobuf.Parser<T> parser) {
      try {
        return parser.parseFrom(header);
      } catch (InvalidProtocolBufferException e) {
        return null;
      }
    }

    public String typeName() {
      FrameType t = FrameType.of(type);
      return t == null ? "type " + type : t.name();
    }
  }

  /**
   * What an agent sent, split into frames: the whole frames, whether the bytes ended inside a frame
   * ({@link #partial}), and why they do not parse as frames at all ({@link #malformed}, null when
   * they do).
   */
  public record Replies(List<Reply> frames, boolean partial, String malformed) {
    /** The first frame of {@code type}, or null. */
    public Reply first(FrameType type) {
      for (Reply r : frames) {
        if (r.type() == type.id()) {
          return r;
        }
      }
      return null;
    }
  }

  /** Splits {@code data[0, length)} into frames, checking every length before using it. */
  public static Replies parse(byte[] data, int length) {
    List<Reply> frames = new ArrayList<>();
    ByteBuffer in = ByteBuffer.wrap(data, 0, length);
    while (in.remaining() >= 4) {
      int at = in.position();
      long frameLength = Integer.toUnsignedLong(in.getInt(at));
      if (frameLength < 5 || frameLength > MAX_REPLY_FRAME) {
        return new Replies(frames, false, "a frame of " + frameLength + " bytes");
      }
      if (in.remaining() < PREFIX) {
        return new Replies(frames, true, null);
      }
      int type = in.get(at + 4) & 0xff;
      int headerLength = in.getInt(at + 5);
      if (headerLength < 0 || headerLength > frameLength - 5) {
        return new Replies(
            frames, false, "header length " + headerLength + " in a frame of " + frameLength);
      }
      if (FrameType.of(type) == null) {
        return new Replies(frames, false, "unknown frame type " + type);
      }
      if (in.remaining() < 4 + frameLength) {
        return new Replies(frames, true, null);
      }
      byte[] header = Arrays.copyOfRange(data, at + PREFIX, at + PREFIX + headerLength);
      frames.add(new Reply(type, header));
      in.position((int) (at + 4 + frameLength));
    }
    return new Replies(frames, in.hasRemaining(), null);
  }
}
