package org.coflow.courier.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.Cancel;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.FetchRequest;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.Registered;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.api.proto.courier.v1.Unregister;
import org.coflow.courier.fetch.BlockConsumer;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.transport.TransportContext;

/**
 * A local process's connection to its host's agent (what the engine adapters use): register data to
 * serve, fetch blocks of other hosts as streams or into files. Each block's future completes once
 * the agent vouched for it ({@code BLOCK_END}) or fails with a {@link ProtocolException}.
 * Thread-safe.
 */
public final class CourierClient implements AutoCloseable {
  private final Channel channel;
  private final ArrayDeque<CompletableFuture<String>> registrations = new ArrayDeque<>();
  private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicLong nextRequest = new AtomicLong(1);

  /** Receives a streamed block's bytes in order; called on the connection's thread. */
  public interface ByteConsumer {
    void accept(ByteBuf data);
  }

  private static final class Pending {
    final CompletableFuture<Long> done = new CompletableFuture<>();
    final int index;
    final BlockConsumer consumer;
    long window;

    /** Set for {@link #stream}: the reader's consumption grants credit, not arrival. */
    final BlockStream stream;

    long unacknowledged;

    Pending(int index, BlockConsumer consumer, long window) {
      this(index, consumer, window, null);
    }

    Pending(int index, BlockConsumer consumer, long window, BlockStream stream) {
      this.index = index;
      this.consumer = consumer;
      this.window = window;
      this.stream = stream;
    }

    void fail(ProtocolException e) {
      done.completeExceptionally(e);
      if (stream != null) {
        stream.failed(new java.io.IOException(e.getMessage(), e));
      }
    }
  }

  /** Completes with the agent's HELLO_ACK; fails with its refusal or the connection's end. */
  private final CompletableFuture<Void> ready = new CompletableFuture<>();

  /** How long {@link #connect} waits for the handshake. */
  private static final long HANDSHAKE_SECONDS = 30;

  private CourierClient(Channel channel) {
    this.channel = channel;
  }

  /** Connects to the agent of {@code hostId} (this process's host) at {@code agent}. */
  public static CourierClient connect(
      TransportContext transport, InetSocketAddress agent, String hostId)
      throws InterruptedException {
    CourierClient[] self = new CourierClient[1];
    ChannelFuture connect =
        transport.connect(
            agent,
            Hello.newBuilder().setRole(Role.ROLE_CLIENT).setHostId(hostId).build(),
            hostId,
            new SimpleChannelInboundHandler<Frame>() {
              @Override
              protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
                try {
                  self[0].read(f);
                } finally {
                  f.release();
                }
              }

              @Override
              public void channelInactive(ChannelHandlerContext ctx) {
                self[0].failAll(
                    new ProtocolException(
                        ErrorCode.ERROR_CODE_UNREACHABLE, "the connection to the agent closed"));
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                self[0].failAll(
                    new ProtocolException(
                        ErrorCode.ERROR_CODE_PROTOCOL,
                        "the connection to the agent failed: " + cause.getMessage(),
                        cause));
                ctx.close();
              }
            },
            channel -> self[0] = new CourierClient(channel));
    connect.sync();
    // Nothing may be sent before the agent admitted us (its challenge answered, its ack back).
    try {
      self[0].ready.get(HANDSHAKE_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      connect.channel().close();
      throw e.getCause() instanceof ProtocolException
          ? (ProtocolException) e.getCause()
          : new ProtocolException(ErrorCode.ERROR_CODE_UNREACHABLE, e.getMessage(), e);
    } catch (java.util.concurrent.TimeoutException e) {
      connect.channel().close();
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_UNREACHABLE,
          "the agent at "
              + agent
              + " did not complete the handshake in "
              + HANDSHAKE_SECONDS
              + " s",
          e);
    }
    return self[0];
  }

  public CompletableFuture<String> register(RegisterSpark req) {
    return register(Frame.of(FrameType.REGISTER_SPARK, req));
  }

  public CompletableFuture<String> register(RegisterMapReduce req) {
    return register(Frame.of(FrameType.REGISTER_MAPREDUCE, req));
  }

  /**
   * Stops the agent serving {@code blockSet}, which this connection's identity registered; the
   * future completes once the agent has forgotten it.
   */
  public CompletableFuture<String> unregister(String blockSet) {
    return register(
        Frame.of(FrameType.UNREGISTER, Unregister.newBuilder().setBlockSet(blockSet).build()));
  }

  private synchronized CompletableFuture<String> register(Frame f) {
    CompletableFuture<String> r = new CompletableFuture<>();
    registrations.add(r);
    channel.writeAndFlush(f);
    return r;
  }

  /**
   * Fetches {@code blocks} (each into its {@code target_file}, or streamed to {@code consumer} when
   * it has none) as one request of {@code coflowId}.
   *
   * @return per block, a future of its length
   */
  public List<CompletableFuture<Long>> fetch(
      String coflowId, List<RemoteBlock> blocks, ByteConsumer consumer, long window) {
    return fetchBlocks(coflowId, blocks, (i, data) -> consumer.accept(data), window);
  }

  /**
   * Like {@link #fetch}, telling the consumer which block (its index in {@code blocks}) each
   * streamed piece belongs to. The consumer runs on the connection's thread and must not block.
   */
  public List<CompletableFuture<Long>> fetchBlocks(
      String coflowId, List<RemoteBlock> blocks, BlockConsumer consumer, long window) {
    long request = nextRequest.getAndIncrement();
    List<CompletableFuture<Long>> out = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      Pending p = new Pending(i, consumer, window);
      pending.put(request << 20 | i, p);
      out.add(p.done);
    }
    channel
        .writeAndFlush(
            Frame.of(
                FrameType.FETCH_REQUEST,
                FetchRequest.newBuilder()
                    .setRequestId(request)
                    .setCoflowId(coflowId)
                    .addAllBlocks(blocks)
                    .setWindow(window)
                    .build()))
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                // The agent is gone (or the request could not be sent): these blocks will not come.
                ProtocolException e =
                    new ProtocolException(
                        ErrorCode.ERROR_CODE_UNREACHABLE,
                        "sending the fetch request to the local agent failed: " + f.cause(),
                        f.cause());
                for (int i = 0; i < blocks.size(); i++) {
                  Pending p = pending.remove(request << 20 | i);
                  if (p != null) {
                    p.done.completeExceptionally(e);
                  }
                }
              }
            });
    return out;
  }

  /**
   * Fetches one block as a blocking stream (its length and raw length known once it starts); the
   * agent keeps at most {@code window} bytes ahead of what the reader consumed. Closing the stream
   * before its end cancels the block.
   */
  public BlockStream stream(String coflowId, RemoteBlock block, long window) {
    long request = nextRequest.getAndIncrement();
    long id = request << 20;
    BlockStream[] self = new BlockStream[1];
    self[0] =
        new BlockStream(
            window,
            bytes ->
                channel.writeAndFlush(
                    Frame.of(
                        FrameType.CREDIT,
                        Credit.newBuilder().setStreamId(id).setBytes(bytes).build())));
    Pending p = new Pending(0, (i, data) -> self[0].offer(data), window, self[0]);
    pending.put(id, p);
    self[0].onClose(
        () -> {
          if (pending.remove(id) != null) {
            channel.writeAndFlush(
                Frame.of(FrameType.CANCEL, Cancel.newBuilder().setStreamId(id).build()));
          }
        });
    channel
        .writeAndFlush(
            Frame.of(
                FrameType.FETCH_REQUEST,
                FetchRequest.newBuilder()
                    .setRequestId(request)
                    .setCoflowId(coflowId)
                    .addBlocks(block)
                    .setWindow(window)
                    .build()))
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                Pending gone = pending.remove(id);
                if (gone != null) {
                  gone.fail(
                      new ProtocolException(
                          ErrorCode.ERROR_CODE_UNREACHABLE,
                          "sending the fetch request to the local agent failed: " + f.cause(),
                          f.cause()));
                }
              }
            });
    return self[0];
  }

  private void read(Frame f) {
    switch (f.type()) {
      case HELLO_ACK:
        ready.complete(null);
        return;
      case REGISTERED:
        poll().complete(((Registered) f.header()).getBlockSet());
        return;
      case ERROR:
        Error e = f.header();
        ProtocolException refused = new ProtocolException(e.getCode(), "agent: " + e.getMessage());
        ready.completeExceptionally(refused);
        failAll(refused);
        return;
      case BLOCK_START:
        {
          BlockStart st = f.header();
          Pending p = pending.get(st.getStreamId());
          if (p != null && st.getWindow() > 0 && st.getWindow() < p.window) {
            // The agent sends less ahead than asked (it is short of room): credit is granted
            // against what it really sends, or the stream would wait for bytes that never come.
            p.window = st.getWindow();
          }
          if (p != null && p.stream != null) {
            p.stream.started(st.getLength(), st.getRawLength());
          }
          return;
        }
      case CHUNK:
        {
          Chunk c = f.header();
          Pending p = pending.get(c.getStreamId());
          if (p != null) {
            int n = ((ByteBuf) f.body()).readableBytes();
            p.consumer.accept(p.index, (ByteBuf) f.body());
            p.unacknowledged += n;
            if (p.stream == null && p.unacknowledged >= p.window / 2) {
              channel.writeAndFlush(
                  Frame.of(
                      FrameType.CREDIT,
                      Credit.newBuilder()
                          .setStreamId(c.getStreamId())
                          .setBytes(p.unacknowledged)
                          .build()));
              p.unacknowledged = 0;
            }
          }
          return;
        }
      case BLOCK_END:
        {
          BlockEnd end = f.header();
          Pending p = pending.remove(end.getStreamId());
          if (p != null) {
            p.done.complete(end.getLength());
            if (p.stream != null) {
              p.stream.ended(end.getLength());
            }
          }
          return;
        }
      case BLOCK_ERROR:
        {
          BlockError be = f.header();
          Pending p = pending.remove(be.getStreamId());
          if (p != null) {
            p.fail(new ProtocolException(be.getCode(), be.getMessage()));
          }
          return;
        }
      default:
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_PROTOCOL, f.type() + " is not expected from an agent");
    }
  }

  private synchronized CompletableFuture<String> poll() {
    CompletableFuture<String> r = registrations.poll();
    if (r == null) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, "REGISTERED without a registration");
    }
    return r;
  }

  private void failAll(ProtocolException e) {
    ready.completeExceptionally(e);
    synchronized (this) {
      for (CompletableFuture<String> r : registrations) {
        r.completeExceptionally(e);
      }
      registrations.clear();
    }
    for (Pending p : pending.values()) {
      p.fail(e);
    }
    pending.clear();
  }

  /** Whether the connection to the agent is still up. */
  public boolean isOpen() {
    return channel.isActive();
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
