package org.coflow.courier.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Proofs;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameDecoder;
import org.coflow.courier.protocol.FrameEncoder;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.MemoryBudget;
import org.coflow.courier.protocol.Preamble;

/**
 * Builds every Netty pipeline of the Courier protocol, as Spark's {@code TransportContext} does for
 * its own: the agent's listening side, its connections to other agents, and a local process's
 * connection to its agent. One place decides the framing, the frame bound, the socket options and
 * the handshake, so that no side can drift from the others.
 *
 * <p>Every connection starts with the {@link Preamble} (magic and version) and a {@code HELLO}
 * naming the connecting host and its role; the accepting side checks the preamble before any frame
 * is decoded.
 */
public final class TransportContext {
  /** Receive buffers of agent-to-agent connections: bulk data, read up to 1 MiB at a time. */
  private static final int RECV_MIN = 64 << 10;

  private static final int RECV_INITIAL = 256 << 10;
  private static final int RECV_MAX = 1 << 20;

  /** Accepted connections read into the heap (see {@link #bind}). */
  private static final io.netty.buffer.ByteBufAllocator ACCEPTED =
      new io.netty.buffer.UnpooledByteBufAllocator(false);

  private final EventLoopGroup group;
  private final int maxFrame;
  private final Credentials credentials;

  /** A context whose connections prove nothing (accepted only by agents without secrets). */
  public TransportContext(EventLoopGroup group, int maxFrame) {
    this(group, maxFrame, Credentials.NONE);
  }

  /**
   * @param group the event loops every channel of this context runs on (the caller owns it)
   * @param maxFrame the largest frame any side accepts
   * @param credentials what connections made through this context prove
   */
  public TransportContext(EventLoopGroup group, int maxFrame, Credentials credentials) {
    this.group = group;
    this.maxFrame = maxFrame;
    this.credentials = credentials;
  }

  public EventLoopGroup group() {
    return group;
  }

  public int maxFrame() {
    return maxFrame;
  }

  /**
   * Listens on {@code address}: every accepted connection passes the {@link ConnectionGate}, gets
   * the preamble check, a frame decoder bounded by the handshake's frame size until it is admitted
   * and by {@code budget} always, and a new {@code handshake} handler, which authenticates the peer
   * and decides what serves it.
   *
   * @return the bound channel
   */
  public Channel bind(
      InetSocketAddress address,
      ConnectionGate gate,
      MemoryBudget budget,
      Supplier<ChannelHandler> handshake)
      throws InterruptedException {
    ServerBootstrap b =
        new ServerBootstrap()
            .group(group, group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // What peers send an agent is requests, not data; reading it into the heap (bounded
            // by the budget) keeps whatever a peer makes the agent hold out of direct memory,
            // which the agent's own data connections need.
            .childOption(ChannelOption.ALLOCATOR, ACCEPTED)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    // The encoder sits before the gate, so the gate's BUSY frame is encoded.
                    ch.pipeline()
                        .addLast("encoder", FrameEncoder.INSTANCE)
                        .addLast("gate", gate)
                        .addLast("preamble", new Preamble.Check())
                        .addLast(
                            "decoder",
                            FrameDecoder.accepting(maxFrame, Limits.HANDSHAKE_FRAME, budget))
                        .addLast("handshake", handshake.get());
                  }
                });
    return b.bind(address).sync().channel();
  }

  /**
   * Connects to an agent at {@code address} and, once connected, sends the preamble and {@code
   * hello} (with this context's identity and a fresh nonce), then answers the agent's challenge
   * ({@link ClientAuth}): {@code handler} sees the {@code HELLO_ACK} only of an agent that proved
   * it is {@code expectedHost} (with credentials: and holds the secret), else an {@code ERROR}.
   * Connections between agents ({@link Role#ROLE_AGENT}) carry bulk data: chunk bodies are streamed
   * to {@code handler} as they arrive and socket reads are large; a local client's connection
   * decodes whole frames.
   *
   * @param owner builds the caller's object around the channel; it runs before the HELLO is sent,
   *     so the handler finds it when the answer arrives (which may be at once)
   * @return the connect future; the handshake's answer reaches {@code handler}
   */
  public ChannelFuture connect(
      InetSocketAddress address,
      Hello plainHello,
      String expectedHost,
      ChannelHandler handler,
      Consumer<Channel> owner) {
    Hello hello =
        plainHello.toBuilder()
            .setIdentity(credentials.identity())
            .setNonce(com.google.protobuf.ByteString.copyFrom(Proofs.nonce()))
            .build();
    boolean bulk = hello.getRole() == Role.ROLE_AGENT;
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast("decoder", new FrameDecoder(maxFrame, bulk))
                        .addLast("encoder", FrameEncoder.INSTANCE)
                        .addLast("auth", new ClientAuth(credentials, hello, expectedHost))
                        .addLast("handler", handler);
                  }
                });
    if (bulk) {
      b.option(
          ChannelOption.RCVBUF_ALLOCATOR,
          new AdaptiveRecvByteBufAllocator(RECV_MIN, RECV_INITIAL, RECV_MAX));
    }
    ChannelFuture connect = b.connect(address);
    // The owner wraps the channel before the HELLO leaves: the peer's answer may come at once,
    // and the handler must find its owner when it does.
    owner.accept(connect.channel());
    connect.addListener(
        f -> {
          if (f.isSuccess()) {
            Channel ch = connect.channel();
            ch.write(Preamble.encode(ch.alloc(), Preamble.VERSION));
            ch.writeAndFlush(Frame.of(FrameType.HELLO, hello));
          }
        });
    return connect;
  }
}
