package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.BlockRequest;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.Cancel;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.transport.TransportContext;

/**
 * The fetching end of a unified connection to another host's agent: block requests of any number of
 * local clients and coflows share it. Each block is verified as it arrives (offsets in order,
 * length as announced, checksum at the end) and its sink completes only if it matches; credit is
 * granted back as the sink consumes, so the serving agent never runs more than a window ahead.
 *
 * <p>Thread-safe: requests may come from any thread; everything else runs on the event loop.
 */
public final class PeerConnection implements AutoCloseable {
  private final String localHost;
  private final String remoteHost;
  private final long window;

  /** The host's receive cap, shared by its connections; credit is granted no faster. */
  private volatile org.coflow.courier.enforce.PriorityPacer receive =
      org.coflow.courier.enforce.PriorityPacer.UNLIMITED;

  /** Under a receive cap, the first credit of a stream (the rest is paced). */
  private static final long CAPPED_FIRST_CREDIT = 256 << 10;

  private final Channel channel;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private volatile int maxStreams = Integer.MAX_VALUE;
  private final Map<Long, InStream> streams = new HashMap<>();
  private final java.util.concurrent.atomic.AtomicLong nextStream =
      new java.util.concurrent.atomic.AtomicLong(1);

  private PeerConnection(String localHost, String remoteHost, long window, Channel channel) {
    this.localHost = localHost;
    this.remoteHost = remoteHost;
    this.window = window;
    this.channel = channel;
  }

  /**
   * Connects to the agent of {@code remoteHost} at {@code address} and says hello.
   *
   * @param window bytes a stream may have in flight before the serving agent waits for credit
   * @param lane whether this is the latency lane to that host (its HELLO says so) rather than one
   *     of the bulk connections
   * @return completes once the remote agent acknowledged the handshake
   */
  public static CompletableFuture<PeerConnection> open(
      TransportContext transport,
      String localHost,
      String remoteHost,
      InetSocketAddress address,
      int connectionIndex,
      long window,
      boolean lane) {
    PeerConnection[] self = new PeerConnection[1];
    CompletableFuture<PeerConnection> result = new CompletableFuture<>();
    ChannelFuture connect =
        transport.connect(
            address,
            Hello.newBuilder()
                .setRole(Role.ROLE_AGENT)
                .setHostId(localHost)
                .setConnectionIndex(connectionIndex)
                .setLane(lane)
                .build(),
            remoteHost,
            new Handler(self),
            channel -> self[0] = new PeerConnection(localHost, remoteHost, window, channel));
    connect.addListener(
        f -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(
                new ProtocolException(
                    ErrorCode.ERROR_CODE_UNREACHABLE,
                    "cannot reach the agent of host "
                        + remoteHost
                        + " at "
                        + address
                        + ": "
                        + f.cause(),
                    f.cause()));
          }
        });
    self[0].ready.whenComplete(
        (v, e) -> {
          if (e != null) {
            result.completeExceptionally(e);
          } else {
            result.complete(self[0]);
          }
        });
    return result;
  }

  public boolean isOpen() {
    return channel.isActive();
  }

  /** Blocks the serving agent lets this connection have in flight (its HELLO_ACK said so). */
  public int maxStreams() {
    return maxStreams;
  }

  /** Paces the credit this connection grants by {@code cap} (the host's receive link rate). */
  public void receiveCap(org.coflow.courier.enforce.PriorityPacer cap) {
    this.receive = cap;
  }

  /** Runs {@code action} once the connection has closed (at once if it already has). */
  public void onClose(Runnable action) {
    channel.closeFuture().addListener(f -> action.run());
  }

  /**
   * Requests {@code block} for {@code coflowId}; its bytes go to {@code sink}. Credit is granted
   * back as the sink returns from each write.
   *
   * @return the stream's id on this connection
   */
  public long fetch(String coflowId, BlockRef block, BlockSink sink) {
    return fetch(coflowId, block, sink, window, true, 0, 0, 0);
  }

  /**
   * Like {@link #fetch(String, BlockRef, BlockSink)}, with a window of its own; with {@code
   * autoCredit} false the sink's owner grants credit with {@link #grant} as it consumes (a relay to
   * a local client that grants credit itself); {@code reader} is the local reader the block is for
   * (its blocks go whole and in order, readers of a coflow in turn; 0: unknown).
   */
  public long fetch(
      String coflowId,
      BlockRef block,
      BlockSink sink,
      long streamWindow,
      boolean autoCredit,
      int priority,
      double rate,
      long reader) {
    long id = nextStream.getAndIncrement();
    channel
        .eventLoop()
        .execute(
            () -> {
              if (!channel.isActive()) {
                sink.fail(
                    new ProtocolException(
                        ErrorCode.ERROR_CODE_UNREACHABLE,
                        "the connection to host " + remoteHost + " is closed"));
                return;
              }
              InStream st =
                  new InStream(
                      remoteHost, coflowId, priority, block, sink, streamWindow, autoCredit);
              streams.put(id, st);
              // Under a receive cap a stream starts with a small credit and the rest is paced; a
              // relayed
              // stream gets its client's whole window, because the client grants more only after
              // receiving half of it (the cap's bucket is charged all the same, so later grants
              // wait).
              long credit =
                  receive.limited() && autoCredit
                      ? Math.min(streamWindow, CAPPED_FIRST_CREDIT)
                      : streamWindow;
              receive.charge(credit);
              st.credited = credit;
              channel.writeAndFlush(
                  Frame.of(
                      FrameType.BLOCK_REQUEST,
                      BlockRequest.newBuilder()
                          .setStreamId(id)
                          .setCoflowId(coflowId)
                          .setBlock(block)
                          .setDstHost(localHost)
                          .setCredit(credit)
                          .setPriority(priority)
                          .setRateBytesPerSec(rate)
                          .setReader(reader)
                          .build()));
            });
    return id;
  }

  /**
   * Grants the serving agent {@code bytes} more of stream {@code id} (streams without auto credit).
   */
  public void grant(long id, long bytes) {
    channel.eventLoop().execute(() -> grantPaced(id, bytes));
  }

  /** Grants credit now, or as soon as the receive cap allows (event loop only). */
  private void grantPaced(long id, long bytes) {
    InStream s = streams.get(id);
    if (s == null || !channel.isActive()) {
      return;
    }
    if (receive.grant(
        s.priority, bytes, () -> channel.eventLoop().execute(() -> sendCredit(id, bytes)))) {
      sendCredit(id, bytes);
    }
  }

  /** Grants more of an auto-credit stream once half its window (or first credit) arrived. */
  private void creditAfterChunk(long id, InStream s) {
    long threshold =
        receive.limited() ? Math.min(s.streamWindow, CAPPED_FIRST_CREDIT) / 2 : s.streamWindow / 2;
    if (s.autoCredit && s.unacknowledged >= threshold && !s.complete()) {
      grantPaced(id, s.unacknowledged);
      s.unacknowledged = 0;
    }
  }

  private void sendCredit(long id, long bytes) {
    InStream s = streams.get(id);
    if (s != null && channel.isActive()) {
      s.credited += bytes;
      channel.writeAndFlush(
          Frame.of(FrameType.CREDIT, Credit.newBuilder().setStreamId(id).setBytes(bytes).build()));
    } else {
      receive.giveBack(bytes); // taken at the cap while the stream ended
    }
  }

  /**
   * Forgets a stream that ended (or failed, or was cancelled) and returns the credit it was granted
   * but did not use to the receive cap: a block smaller than its first credit (most blocks of a
   * shuffle with many partitions) must not cost the host's link a whole credit.
   */
  private InStream end(long id) {
    InStream s = streams.remove(id);
    if (s != null) {
      returnUnusedCredit(s);
    }
    return s;
  }

  private void returnUnusedCredit(InStream s) {
    if (s.credited > s.received) {
      receive.giveBack(s.credited - s.received);
    }
  }

  /**
   * Tells the serving agent that {@code coflowId}'s streams on this connection now have {@code
   * priority} and, if {@code rate} is positive, that pace in bytes/s.
   */
  public void prioritize(String coflowId, int priority, double rate) {
    channel
        .eventLoop()
        .execute(
            () -> {
              for (InStream st : streams.values()) {
                if (st.coflow.equals(coflowId)) {
                  st.priority = priority; // its credit queues at the receive cap by this
                }
              }
              if (channel.isActive()) {
                channel.writeAndFlush(
                    Frame.of(
                        FrameType.PRIORITY,
                        org.coflow.api.proto.courier.v1.Priority.newBuilder()
                            .setCoflowId(coflowId)
                            .setPriority(priority)
                            .setRateBytesPerSec(rate)
                            .build()));
              }
            });
  }

  /**
   * Stops stream {@code id}: the serving agent is told to drop it and its sink fails (once, with
   * "cancelled"), so that whoever counts the stream as running sees it end.
   */
  public void cancel(long id) {
    channel
        .eventLoop()
        .execute(
            () -> {
              InStream s = end(id);
              if (s == null) {
                return;
              }
              if (channel.isActive()) {
                channel.writeAndFlush(
                    Frame.of(FrameType.CANCEL, Cancel.newBuilder().setStreamId(id).build()));
              }
              s.sink.fail(
                  new ProtocolException(
                      ErrorCode.ERROR_CODE_CANCELLED, "the stream was cancelled by its fetcher"));
            });
  }

  @Override
  public void close() {
    channel.close();
  }

  private static final class Handler extends SimpleChannelInboundHandler<Frame> {
    private final PeerConnection[] self;

    Handler(PeerConnection[] self) {
      this.self = self;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) throws Exception {
      PeerConnection c = self[0];
      try {
        c.read(frame);
      } finally {
        frame.release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      self[0].failAll(
          new ProtocolException(
              ErrorCode.ERROR_CODE_UNREACHABLE,
              "the connection to host " + self[0].remoteHost + " closed"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      self[0].failAll(
          new ProtocolException(
              ErrorCode.ERROR_CODE_PROTOCOL,
              "the connection to host " + self[0].remoteHost + " failed: " + cause.getMessage(),
              cause));
      ctx.close();
    }
  }

  private void read(Frame frame) throws IOException {
    switch (frame.type()) {
      case HELLO_ACK:
        int bound = ((org.coflow.api.proto.courier.v1.HelloAck) frame.header()).getMaxStreams();
        maxStreams = bound > 0 ? bound : Integer.MAX_VALUE;
        ready.complete(null);
        return;
      case ERROR:
        Error e = frame.header();
        ProtocolException ex =
            new ProtocolException(e.getCode(), "host " + remoteHost + ": " + e.getMessage());
        failAll(ex);
        return;
      default:
        break;
    }
    long id = streamId(frame);
    InStream s = streams.get(id);
    if (s == null) {
      if (id > 0 && id < nextStream.get()) {
        return; // a stream we cancelled: its frames already on the wire are dropped
      }
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, frame.type() + " for unknown stream " + id);
    }
    try {
      switch (frame.type()) {
        case BLOCK_START:
          s.begin(frame.header());
          break;
        case CHUNK:
          s.chunk(frame.header(), frame.bodyOffset(), (ByteBuf) frame.body());
          creditAfterChunk(id, s);
          break;
        case BLOCK_END:
          end(id);
          String problem = s.verify(frame.header());
          if (problem == null) {
            s.sink.complete();
          } else {
            s.sink.fail(new ProtocolException(ErrorCode.ERROR_CODE_CORRUPT, problem));
          }
          break;
        case BLOCK_ERROR:
          end(id);
          BlockError be = frame.header();
          s.sink.fail(
              new ProtocolException(be.getCode(), "host " + remoteHost + ": " + be.getMessage()));
          break;
        default:
          throw new ProtocolException(
              ErrorCode.ERROR_CODE_PROTOCOL,
              frame.type() + " is not expected from a serving agent");
      }
    } catch (IOException | ProtocolException ex) {
      end(id);
      if (frame.type() != FrameType.BLOCK_END && frame.type() != FrameType.BLOCK_ERROR) {
        channel.writeAndFlush(
            Frame.of(FrameType.CANCEL, Cancel.newBuilder().setStreamId(id).build()));
      }
      s.sink.fail(
          ex instanceof ProtocolException
              ? (ProtocolException) ex
              : new ProtocolException(
                  ErrorCode.ERROR_CODE_IO,
                  "block "
                      + s.block.getBlock()
                      + " from host "
                      + remoteHost
                      + ": "
                      + ex.getMessage(),
                  ex));
    }
  }

  private static long streamId(Frame frame) {
    switch (frame.type()) {
      case BLOCK_START:
        return ((BlockStart) frame.header()).getStreamId();
      case CHUNK:
        return ((Chunk) frame.header()).getStreamId();
      case BLOCK_END:
        return ((BlockEnd) frame.header()).getStreamId();
      case BLOCK_ERROR:
        return ((BlockError) frame.header()).getStreamId();
      default:
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_PROTOCOL, frame.type() + " is not expected from a serving agent");
    }
  }

  private void failAll(ProtocolException error) {
    ready.completeExceptionally(error);
    for (InStream s : streams.values()) {
      s.sink.fail(error);
      returnUnusedCredit(s);
    }
    streams.clear();
  }
}
