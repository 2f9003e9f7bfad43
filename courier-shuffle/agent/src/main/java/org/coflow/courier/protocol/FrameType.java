package org.coflow.courier.protocol;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import org.coflow.api.proto.courier.v1.Auth;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.BlockRequest;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.Cancel;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.FetchRequest;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.HelloAck;
import org.coflow.api.proto.courier.v1.Priority;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.Registered;
import org.coflow.api.proto.courier.v1.Unregister;

/**
 * The frame types of the Courier protocol with their stable wire ids (see {@code courier.proto} and
 * {@code docs/protocol.md}). Ids are never reused; a frame whose type id is not listed here is a
 * protocol error.
 */
public enum FrameType {
  HELLO(1, Hello.parser(), false),
  HELLO_ACK(2, HelloAck.parser(), false),
  ERROR(3, Error.parser(), false),
  CHALLENGE(4, Challenge.parser(), false),
  AUTH(5, Auth.parser(), false),
  REGISTER_SPARK(10, RegisterSpark.parser(), false),
  REGISTER_MAPREDUCE(11, RegisterMapReduce.parser(), false),
  REGISTERED(12, Registered.parser(), false),
  UNREGISTER(13, Unregister.parser(), false),
  FETCH_REQUEST(20, FetchRequest.parser(), false),
  BLOCK_REQUEST(21, BlockRequest.parser(), false),
  CHUNK(30, Chunk.parser(), true),
  BLOCK_END(31, BlockEnd.parser(), false),
  BLOCK_ERROR(32, BlockError.parser(), false),
  CREDIT(33, Credit.parser(), false),
  BLOCK_START(34, BlockStart.parser(), false),
  CANCEL(35, Cancel.parser(), false),
  PRIORITY(36, Priority.parser(), false);

  private static final FrameType[] BY_ID = new FrameType[256];

  static {
    for (FrameType t : values()) {
      BY_ID[t.id] = t;
    }
  }

  private final int id;
  private final Parser<? extends MessageLite> parser;
  private final boolean hasBody;

  FrameType(int id, Parser<? extends MessageLite> parser, boolean hasBody) {
    this.id = id;
    this.parser = parser;
    this.hasBody = hasBody;
  }

  /** The type's wire id (one unsigned byte). */
  public int id() {
    return id;
  }

  /** Whether frames of this type carry a body; the others must have an empty one. */
  public boolean hasBody() {
    return hasBody;
  }

  Parser<? extends MessageLite> parser() {
    return parser;
  }

  /**
   * The longest frame of this type a receiver accepts once the handshake is done: requests that
   * name many blocks and chunks up to {@code maxFrame}, registrations up to 1 MiB, everything else
   * (handshake, control) up to 64 KiB. Before the handshake every frame is bounded much lower
   * ({@code transport.Limits#HANDSHAKE_FRAME}).
   */
  public long maxLength(int maxFrame) {
    switch (this) {
      case FETCH_REQUEST:
      case CHUNK:
        return maxFrame;
      case REGISTER_SPARK:
      case REGISTER_MAPREDUCE:
      case BLOCK_START: // a segment lists each of its partitions (up to 2^15 in 1 MiB)
        return Math.min(maxFrame, 1 << 20);
      default:
        return Math.min(maxFrame, 64 << 10);
    }
  }

  /** The type with wire id {@code id}, or null if there is none. */
  public static FrameType of(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }
}
