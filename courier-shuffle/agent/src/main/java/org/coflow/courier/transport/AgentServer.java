package org.coflow.courier.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import org.coflow.courier.protocol.FrameDecoder;
import org.coflow.courier.protocol.FrameEncoder;
import org.coflow.courier.protocol.Preamble;
import org.coflow.courier.serve.BlockRegistry;

/**
 * An agent's listening socket: every connection starts with the {@link Preamble}, then frames;
 * its first frame, {@code HELLO}, decides what serves it ({@link ServerHandshake}).
 */
public final class AgentServer implements AutoCloseable {
  private final Channel channel;

  private AgentServer(Channel channel) {
    this.channel = channel;
  }

  /**
   * Binds and starts serving.
   *
   * @throws InterruptedException if interrupted while binding
   */
  public static AgentServer bind(EventLoopGroup boss, EventLoopGroup workers, InetSocketAddress address,
      String hostId, BlockRegistry registry, org.coflow.courier.fetch.FetchService fetcher, int chunkSize,
      int maxFrame, org.coflow.courier.enforce.LinkRate link) throws InterruptedException {
    // One pace per (fetching host, coflow), shared by all connections from that host.
    org.coflow.courier.enforce.PaceTable paces = new org.coflow.courier.enforce.PaceTable(chunkSize);
    // The host's sending cap, handed to its connections chunk by chunk in priority order.
    org.coflow.courier.enforce.PriorityPacer sending = link.limited()
        ? new org.coflow.courier.enforce.PriorityPacer(link, workers.next()) : org.coflow.courier.enforce.PriorityPacer.UNLIMITED;
    ServerBootstrap b = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast("preamble", new Preamble.Check())
                .addLast("decoder", new FrameDecoder(maxFrame))
                .addLast("encoder", FrameEncoder.INSTANCE)
                .addLast("handshake", new ServerHandshake(hostId, registry, chunkSize, fetcher, sending,
                    paces));
          }
        });
    return new AgentServer(b.bind(address).sync().channel());
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
