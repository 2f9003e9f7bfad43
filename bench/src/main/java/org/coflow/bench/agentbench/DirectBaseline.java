package org.coflow.bench.agentbench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.zip.Adler32;

/**
 * The benchmark's baseline: what a shuffle fetch costs without Courier. A plain Netty server sends
 * a requested file range zero-copy ({@link DefaultFileRegion}) on the client's own connection; the
 * client writes the bytes into its file and checks them with the same checksum (ADLER32) Courier
 * verifies. One connection per client, reused for its blocks; no agents in between.
 */
final class DirectBaseline implements AutoCloseable {
  private final Channel server;
  private final File data;

  DirectBaseline(EventLoopGroup group, File data) throws InterruptedException {
    this.data = data;
    this.server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new FixedLengthFrameDecoder(16),
                            new SimpleChannelInboundHandler<ByteBuf>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext ctx, ByteBuf req) {
                                long offset = req.readLong();
                                long length = req.readLong();
                                ctx.writeAndFlush(
                                    new DefaultFileRegion(
                                        DirectBaseline.this.data, offset, length));
                              }
                            });
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  /**
   * Opens one client connection; its {@link Client#fetch} calls run one after another on it, as a
   * stock shuffle client reuses its connection to a server.
   */
  static CompletableFuture<Client> connect(EventLoopGroup group, InetSocketAddress server) {
    Client client = new Client();
    CompletableFuture<Client> ready = new CompletableFuture<>();
    new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(client);
              }
            })
        .connect(server)
        .addListener(
            f -> {
              if (f.isSuccess()) {
                ready.complete(client);
              } else {
                ready.completeExceptionally(f.cause());
              }
            });
    return ready;
  }

  /** One client connection: receives the requested range, writes it into its file, verifies it. */
  static final class Client extends SimpleChannelInboundHandler<ByteBuf> implements AutoCloseable {
    private ChannelHandlerContext ctx;
    private FileChannel out;
    private Adler32 sum;
    private long length;
    private long expected;
    private long received;
    private CompletableFuture<Long> done;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    /** Fetches {@code [offset, offset+length)} into {@code target}; one fetch at a time. */
    CompletableFuture<Long> fetch(long offset, long length, long expectedAdler, Path target) {
      CompletableFuture<Long> result = new CompletableFuture<>();
      ctx.executor()
          .execute(
              () -> {
                try {
                  out =
                      FileChannel.open(
                          target,
                          StandardOpenOption.CREATE,
                          StandardOpenOption.WRITE,
                          StandardOpenOption.TRUNCATE_EXISTING);
                } catch (IOException e) {
                  result.completeExceptionally(e);
                  return;
                }
                this.sum = new Adler32();
                this.length = length;
                this.expected = expectedAdler;
                this.received = 0;
                this.done = result;
                ctx.writeAndFlush(ctx.alloc().buffer(16).writeLong(offset).writeLong(length));
              });
      return result;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf buf) throws IOException {
      int n = buf.readableBytes();
      if (done == null || received + n > length) {
        throw new IOException("baseline: " + n + " unexpected bytes");
      }
      if (buf.hasArray()) {
        sum.update(buf.array(), buf.arrayOffset() + buf.readerIndex(), n);
      } else {
        sum.update(buf.nioBuffer());
      }
      while (buf.isReadable()) {
        received += buf.readBytes(out, received, buf.readableBytes());
      }
      if (received == length) {
        out.close();
        CompletableFuture<Long> d = done;
        done = null;
        if (sum.getValue() == expected) {
          d.complete(length);
        } else {
          d.completeExceptionally(new IOException("baseline: checksum mismatch"));
        }
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (done != null) {
        done.completeExceptionally(cause);
      }
      ctx.close();
    }

    @Override
    public void close() {
      ctx.close().syncUninterruptibly();
    }
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
  }
}
