package org.coflow.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.Adler32;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.transport.TransportContext;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents report their flows to a real master and order what they fetch by its schedule: under a
 * link rate and an ORDER policy (Sincronia), the smaller coflow's block overtakes the larger one
 * requested before it. With the master down, data still moves.
 */
class AgentWithMasterTest {
  static final int BIG = 6 << 20;
  static final int SMALL = 2 << 20;

  /** One Spark map output per shuffle, each with a single partition of the given size. */
  static void writeMapOutput(Path dir, int shuffle, int size, Random random) throws Exception {
    byte[] data = new byte[size];
    random.nextBytes(data);
    String base = "shuffle_" + shuffle + "_0_0";
    write(dir, base + ".data", data);
    write(dir, base + ".index", ByteBuffer.allocate(16).putLong(0).putLong(size).array());
    Adler32 a = new Adler32();
    a.update(data);
    write(dir, base + ".checksum.ADLER32", ByteBuffer.allocate(8).putLong(a.getValue()).array());
  }

  /** Spark's placement of a file among 64 sub-directories of one local dir. */
  static void write(Path dir, String name, byte[] bytes) throws Exception {
    int h = name.hashCode();
    h = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
    Path p = dir.resolve(String.format("%02x", h % 64)).resolve(name);
    Files.createDirectories(p.getParent());
    Files.write(p, bytes);
  }

  static AgentOptions local(String hostId, int threads) {
    return AgentOptions.forHost(hostId)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .set(CourierConfig.THREADS, threads)
        .roots(java.util.List.of(java.nio.file.Path.of(System.getProperty("java.io.tmpdir"))))
        .clientRegistrations(true);
  }

  static CourierClient client(NioEventLoopGroup group, InetSocketAddress agent, String hostId)
      throws Exception {
    return CourierClient.connect(
        new TransportContext(group, CourierAgent.MAX_FRAME), agent, hostId);
  }

  static RemoteBlock block(CourierAgent sender, int shuffle, int size) {
    return RemoteBlock.newBuilder()
        .setHostId(sender.hostId())
        .setAgentAddress("127.0.0.1:" + sender.address().getPort())
        .setSize(size)
        .setBlock(
            BlockRef.newBuilder()
                .setBlockSet("spark/app/1")
                .setBlock("shuffle_" + shuffle + "_0_0"))
        .build();
  }

  /** A token file only its owner can read. */
  static Path token(Path dir, String name, String token) throws java.io.IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, token);
    Files.setPosixFilePermissions(
        f, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    return f;
  }

  @Test
  void anAgentWithoutTheMastersTokenNeverOpensASession(@TempDir Path tmp) throws Exception {
    Config config =
        Config.defaults()
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(
                MasterConfig.TOKEN_FILE,
                token(tmp, "token", "7f3a9c0e5b2d4e6f8a1b3c5d7e9f0a2b").toString());
    try (MasterServer master = MasterServer.start(config, null)) {
      String target = "127.0.0.1:" + master.port();
      Path wrong = token(tmp, "wrong", "0000aaaa1111bbbb2222cccc3333dddd");
      try (CourierAgent stranger =
              CourierAgent.start(
                  local("exec-9", 1)
                      .set(CourierConfig.MASTER, target)
                      .set(CourierConfig.MASTER_TOKEN_FILE, wrong.toString()));
          CourierAgent member =
              CourierAgent.start(
                  local("exec-1", 1)
                      .set(CourierConfig.MASTER, target)
                      .set(CourierConfig.MASTER_TOKEN_FILE, tmp.resolve("token").toString()))) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (master.service().snapshot(0).agents().size() < 1) {
          assertTrue(System.nanoTime() < deadline, "the member never opened its session");
          Thread.sleep(10);
        }
        Thread.sleep(1500); // the stranger has been retrying all along
        assertEquals(1, master.service().snapshot(0).agents().size(), "only the member's session");
      }
    }
  }

  @Test
  void theMastersOrderReachesTheSendingAgent(@TempDir Path tmp) throws Exception {
    // The control plane authenticated end to end: the master takes a token, the agents prove it.
    Path token = token(tmp, "token", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b");
    Config config =
        Config.defaults()
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.TOKEN_FILE, token.toString())
            .with(MasterConfig.POLICY, "sincronia")
            .with(PolicyConfig.DELTA_MS, 20L);
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (MasterServer master = MasterServer.start(config, null)) {
      String target = "127.0.0.1:" + master.port();
      try (CourierAgent sender =
              CourierAgent.start(
                  local("exec-1", 1)
                      .link(new LinkRate(12 << 20, 64 << 10))
                      .set(CourierConfig.MASTER, target)
                      .set(CourierConfig.MASTER_TOKEN_FILE, token.toString()));
          CourierAgent fetcher =
              CourierAgent.start(
                  local("exec-0", 1)
                      .set(CourierConfig.MASTER, target)
                      .set(CourierConfig.MASTER_TOKEN_FILE, token.toString()))) {
        Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
        Random random = new Random(4);
        writeMapOutput(dir, 0, BIG, random);
        writeMapOutput(dir, 1, SMALL, random);
        try (CourierClient registrar = client(group, sender.address(), "exec-1");
            CourierClient client = client(group, fetcher.address(), "exec-0")) {
          registrar
              .register(
                  RegisterSpark.newBuilder()
                      .setAppId("app")
                      .setExecId("1")
                      .addLocalDirs(dir.toString())
                      .setSubDirsPerLocalDir(64)
                      .setChecksumAlgorithm("ADLER32")
                      .build())
              .get(10, TimeUnit.SECONDS);
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (master.service().snapshot(0).agents().size() < 2) {
            assertTrue(System.nanoTime() < deadline, "the agents never opened their sessions");
            Thread.sleep(10);
          }
          AtomicLong bigBytes = new AtomicLong();
          CompletableFuture<Long> big =
              client
                  .fetch(
                      "app/big",
                      List.of(block(sender, 0, BIG)),
                      d -> bigBytes.addAndGet(d.readableBytes()),
                      256 << 10)
                  .get(0);
          CompletableFuture<Long> small =
              client
                  .fetch("app/small", List.of(block(sender, 1, SMALL)), d -> {}, 256 << 10)
                  .get(0);
          long[] atSmall = {-1};
          small.thenRun(() -> atSmall[0] = bigBytes.get());
          assertEquals(SMALL, small.get(30, TimeUnit.SECONDS));
          assertEquals(BIG, big.get(30, TimeUnit.SECONDS));
          System.out.println("big coflow bytes when the small one completed: " + atSmall[0]);
          assertTrue(
              atSmall[0] >= 0 && atSmall[0] < SMALL / 2,
              "the big coflow had "
                  + atSmall[0]
                  + " bytes when the small one completed; sharing the link equally it would have had "
                  + SMALL);
        }
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void dataMovesWhileTheMasterIsDown(@TempDir Path tmp) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String target = "127.0.0.1:" + port;
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (CourierAgent sender =
            CourierAgent.start(local("exec-1", 1).set(CourierConfig.MASTER, target));
        CourierAgent fetcher =
            CourierAgent.start(local("exec-0", 1).set(CourierConfig.MASTER, target))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      writeMapOutput(dir, 0, SMALL, new Random(9));
      try (CourierClient registrar = client(group, sender.address(), "exec-1");
          CourierClient client = client(group, fetcher.address(), "exec-0")) {
        registrar
            .register(
                RegisterSpark.newBuilder()
                    .setAppId("app")
                    .setExecId("1")
                    .addLocalDirs(dir.toString())
                    .setSubDirsPerLocalDir(64)
                    .setChecksumAlgorithm("ADLER32")
                    .build())
            .get(10, TimeUnit.SECONDS);
        assertEquals(
            SMALL,
            client
                .fetch("app/0", List.of(block(sender, 0, SMALL)), d -> {}, 1 << 20)
                .get(0)
                .get(30, TimeUnit.SECONDS));
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
