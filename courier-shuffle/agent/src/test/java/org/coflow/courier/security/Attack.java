package org.coflow.courier.security;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.transport.TransportContext;

/**
 * What the attack tests need of an agent, as it ships: started as {@code bin/coflow agent} starts
 * it (a standalone agent with {@code --dirs} and, if given, {@code --secret-file}), or as a Spark
 * executor embeds it; clients with or without a secret; and a raw agent-to-agent connection that
 * sees every frame.
 */
final class Attack {
  private Attack() {}

  /** A standalone agent serving {@code root}, admitting only holders of {@code secretFile}. */
  static CourierAgent standalone(String host, Path root, Path secretFile, AgentOptions extra)
      throws Exception {
    AgentOptions o =
        extra
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .set(CourierConfig.DIRS, root.toString())
            .clientRegistrations(true);
    if (secretFile != null) {
      o.set(CourierConfig.SECRET_FILE, secretFile.toString());
    }
    return CourierAgent.start(o);
  }

  static CourierAgent standalone(String host, Path root, Path secretFile) throws Exception {
    return standalone(host, root, secretFile, AgentOptions.forHost(host));
  }

  /** An agent as a Spark executor embeds it: it serves the executor's dir. */
  static CourierAgent executorLike(String host, Path blockManagerDir) throws Exception {
    return CourierAgent.start(
        AgentOptions.forHost(host)
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .roots(List.of(blockManagerDir)));
  }

  /** A cluster secret in a file only its owner can read. */
  static Path secretFile(Path dir, String name) throws Exception {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Path f = dir.resolve(name);
    Files.writeString(f, Base64.getEncoder().encodeToString(key));
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    return f;
  }

  static Credentials cluster(Path secretFile) {
    return Credentials.of(Credentials.CLUSTER, Secret.fromFile(secretFile, "test"));
  }

  /** A client proving nothing. */
  static CourierClient stranger(EventLoopGroup group, CourierAgent agent) throws Exception {
    return CourierClient.connect(
        new TransportContext(group, CourierAgent.MAX_FRAME), agent.address(), agent.hostId());
  }

  /** A client proving {@code secretFile}'s secret. */
  static CourierClient member(EventLoopGroup group, CourierAgent agent, Path secretFile)
      throws Exception {
    return CourierClient.connect(
        new TransportContext(group, CourierAgent.MAX_FRAME, cluster(secretFile)),
        agent.address(),
        agent.hostId());
  }

  /** A client proving MapReduce job {@code jobId}'s token. */
  static CourierClient job(EventLoopGroup group, CourierAgent agent, String jobId, Secret token)
      throws Exception {
    return CourierClient.connect(
        new TransportContext(
            group, CourierAgent.MAX_FRAME, Credentials.of(Credentials.mapReduce(jobId), token)),
        agent.address(),
        agent.hostId());
  }

  static RegisterSpark spark(String app, String exec, Path dir, boolean checksums) {
    return RegisterSpark.newBuilder()
        .setAppId(app)
        .setExecId(exec)
        .addLocalDirs(dir.toString())
        .setSubDirsPerLocalDir(64)
        .setChecksumAlgorithm(checksums ? "ADLER32" : "")
        .build();
  }

  static RemoteBlock block(CourierAgent from, String set, String block, String target) {
    return RemoteBlock.newBuilder()
        .setHostId(from.hostId())
        .setAgentAddress("127.0.0.1:" + from.address().getPort())
        .setBlock(BlockRef.newBuilder().setBlockSet(set).setBlock(block))
        .setSize(-1)
        .setTargetFile(target == null ? "" : target)
        .build();
  }

  /** Fetches one block through {@code client}'s agent; the bytes land in {@code into}. */
  static CompletableFuture<Long> fetch(
      CourierClient client, RemoteBlock block, ByteArrayOutputStream into) {
    return client
        .fetchBlocks(
            "attack-coflow",
            List.of(block),
            (i, data) -> {
              byte[] b = new byte[data.readableBytes()];
              data.readBytes(b);
              synchronized (into) {
                into.write(b, 0, b.length);
              }
            },
            1 << 20)
        .get(0);
  }

  /** An agent-to-agent connection under the test's control: every frame it gets is queued. */
  static final class RawPeer implements AutoCloseable {
    final LinkedBlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
    Channel channel;

    static RawPeer connect(
        EventLoopGroup group, CourierAgent to, String asHost, Credentials credentials)
        throws Exception {
      RawPeer p = new RawPeer();
      new TransportContext(group, CourierAgent.MAX_FRAME, credentials)
          .connect(
              to.address(),
              Hello.newBuilder().setRole(Role.ROLE_AGENT).setHostId(asHost).build(),
              to.hostId(),
              new SimpleChannelInboundHandler<Frame>(false) {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
                  p.frames.add(f);
                }
              },
              ch -> p.channel = ch)
          .sync();
      return p;
    }

    Frame next() throws InterruptedException {
      Frame f = frames.poll(10, TimeUnit.SECONDS);
      if (f == null) {
        throw new AssertionError("no frame within 10 s");
      }
      return f;
    }

    void send(Frame f) {
      channel.writeAndFlush(f);
    }

    /** Asks the serving agent for {@code block} of {@code set} with {@code credit} bytes. */
    void request(long stream, String set, String block, long credit) {
      send(
          Frame.of(
              org.coflow.courier.protocol.FrameType.BLOCK_REQUEST,
              org.coflow.api.proto.courier.v1.BlockRequest.newBuilder()
                  .setStreamId(stream)
                  .setCoflowId("c")
                  .setBlock(BlockRef.newBuilder().setBlockSet(set).setBlock(block))
                  .setDstHost("dst")
                  .setCredit(credit)
                  .build()));
    }

    /** The bytes of a chunk frame (released). */
    static byte[] body(Frame f) {
      ByteBuf b = (ByteBuf) f.body();
      byte[] out = new byte[b.readableBytes()];
      b.getBytes(b.readerIndex(), out);
      f.release();
      return out;
    }

    @Override
    public void close() {
      channel.close().syncUninterruptibly();
      Frame f;
      while ((f = frames.poll()) != null) {
        f.release();
      }
    }
  }
}
