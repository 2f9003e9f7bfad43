package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.testing.Agents;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.Race;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * RATE policies: a coflow paced at a rate is sent no faster than that rate (a lower bound on its
 * time, robust on any machine), while an unpaced coflow on the same connection is not held back.
 */
@ExtendWith(LeakCheck.class)
class PacingTest {
  static final int SIZE = 3 << 20;

  /**
   * Slow enough that the unpaced block has most of a second to finish, even on a loaded 2-core CI
   * machine.
   */
  static final double RATE = 3 << 20;

  @Test
  void aPacedCoflowKeepsToItsRateAndOthersAreNotHeldBack(@TempDir Path tmp) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (CourierAgent sender = CourierAgent.start(Agents.local("exec-1", 1));
        CourierAgent fetcher = CourierAgent.start(Agents.local("exec-0", 1))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      ShuffleFiles.writeSparkMapOutput(new Random(1), List.of(dir), 0, 0, new int[] {SIZE}, true);
      ShuffleFiles.writeSparkMapOutput(new Random(2), List.of(dir), 1, 0, new int[] {SIZE}, true);
      try (CourierClient registrar = Agents.client(group, sender.address(), "exec-1");
          CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
        registerMapOutputs(registrar, dir);
        fetcher.setSchedule("paced", "exec-1", 0, RATE);
        long t0 = System.nanoTime();
        long[] atFree = {
          Race.firstBytesWhenSecondDone(
              client, "paced", block(sender, 0), "free", block(sender, 1), SIZE, 1 << 20)
        };
        double seconds = (System.nanoTime() - t0) / 1e9;
        double burst = org.coflow.courier.enforce.LinkRate.withSlack(RATE, 64 << 10).burst();
        assertTrue(
            seconds >= (SIZE - burst) / RATE * 0.95,
            "a block paced at " + RATE + " B/s took only " + seconds + " s for " + SIZE + " bytes");
        // Held back, the unpaced block would finish only after the paced one (atFree = SIZE).
        assertTrue(
            atFree[0] < SIZE * 3 / 4,
            "the unpaced block waited for the paced one: the paced one had "
                + atFree[0]
                + " bytes when the unpaced one completed");
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void aReceiveCapHoldsWhateverTheSenderCouldDo(@TempDir Path tmp) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    double cap = 8 << 20;
    try (CourierAgent sender = CourierAgent.start(Agents.local("exec-1", 1));
        CourierAgent fetcher =
            CourierAgent.start(
                Agents.local("exec-0", 1)
                    .link(new org.coflow.courier.enforce.LinkRate(cap, 64 << 10)))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      byte[][] parts =
          ShuffleFiles.writeSparkMapOutput(
              new Random(1), List.of(dir), 0, 0, new int[] {SIZE}, true);
      Path out = Files.createDirectories(tmp.resolve("out")).toRealPath();
      try (CourierClient registrar = Agents.client(group, sender.address(), "exec-1");
          CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
        registerMapOutputs(registrar, dir);
        client
            .register(
                RegisterSpark.newBuilder()
                    .setAppId("app")
                    .setExecId("0")
                    .addLocalDirs(out.toString())
                    .setSubDirsPerLocalDir(64)
                    .build())
            .get(10, TimeUnit.SECONDS);
        long t0 = System.nanoTime();
        assertEquals(
            SIZE,
            client
                .fetch(
                    "c",
                    List.of(
                        block(sender, 0).toBuilder()
                            .setTargetFile(out.resolve("b").toString())
                            .build()),
                    d -> {},
                    1 << 20)
                .get(0)
                .get(30, TimeUnit.SECONDS));
        double seconds = (System.nanoTime() - t0) / 1e9;
        double burst = org.coflow.courier.enforce.LinkRate.withSlack(cap, 64 << 10).burst();
        assertTrue(
            seconds >= (SIZE - (256 << 10) - burst) / cap * 0.95,
            "received "
                + SIZE
                + " bytes in "
                + seconds
                + " s under a receive cap of "
                + cap
                + " B/s");
        org.junit.jupiter.api.Assertions.assertArrayEquals(
            parts[0], Files.readAllBytes(out.resolve("b")));
        // Streamed to the client, whose window (4 MiB) is far above the capped first credit: the
        // relay must still get credit to the sender (it once stalled here for good).
        java.io.ByteArrayOutputStream streamed = new java.io.ByteArrayOutputStream();
        assertEquals(
            SIZE,
            client
                .fetch(
                    "c",
                    List.of(block(sender, 0)),
                    d -> {
                      byte[] b = new byte[d.readableBytes()];
                      d.readBytes(b);
                      streamed.write(b, 0, b.length);
                    },
                    4 << 20)
                .get(0)
                .get(30, TimeUnit.SECONDS));
        org.junit.jupiter.api.Assertions.assertArrayEquals(parts[0], streamed.toByteArray());
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** A flow the master stops scheduling is not held to the last rate it was given. */
  @Test
  void aPaceNobodyRenewsIsLifted(@TempDir Path tmp) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    double slow = 256 << 10; // 12 s for the block
    try (CourierAgent sender = CourierAgent.start(Agents.local("exec-1", 1));
        CourierAgent fetcher = CourierAgent.start(Agents.local("exec-0", 1))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      ShuffleFiles.writeSparkMapOutput(new Random(1), List.of(dir), 0, 0, new int[] {SIZE}, true);
      try (CourierClient registrar = Agents.client(group, sender.address(), "exec-1");
          CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
        registerMapOutputs(registrar, dir);
        fetcher.setSchedule("c", "exec-1", 3, slow);
        fetcher.setSchedule("other", "exec-1", 1, slow);
        long t0 = System.nanoTime();
        java.util.concurrent.CompletableFuture<Long> done =
            client.fetch("c", List.of(block(sender, 0)), d -> {}, 1 << 20).get(0);
        Thread.sleep(500);
        assertTrue(!done.isDone(), "the block was not paced to begin with");
        fetcher.unschedule("c", "exec-1");
        assertEquals(SIZE, done.get(30, TimeUnit.SECONDS));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(
            seconds < SIZE / slow / 2,
            "the block took " + seconds + " s: still paced at " + slow + " B/s");
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /**
   * A shuffle with many partitions has mostly tiny blocks. Each costs the capped links its bytes:
   * charged a whole chunk at the sender and a whole first credit at the receiver, 400 blocks of 64
   * bytes took 100 s at 256 KiB/s, where their 25 KiB need a tenth of a second.
   */
  @Test
  void tinyBlocksCostTheCapsTheirBytesNotAChunkEach(@TempDir Path tmp) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    double cap = 256 << 10;
    int blocks = 400;
    int[] sizes = new int[blocks];
    java.util.Arrays.fill(sizes, 64);
    try (CourierAgent sender =
            CourierAgent.start(
                Agents.local("exec-1", 1)
                    .link(org.coflow.courier.enforce.LinkRate.withSlack(cap, 64 << 10)));
        CourierAgent fetcher =
            CourierAgent.start(
                Agents.local("exec-0", 1)
                    .link(org.coflow.courier.enforce.LinkRate.withSlack(cap, 64 << 10)))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      byte[][] parts =
          ShuffleFiles.writeSparkMapOutput(new Random(3), List.of(dir), 0, 0, sizes, true);
      try (CourierClient registrar = Agents.client(group, sender.address(), "exec-1");
          CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
        registerMapOutputs(registrar, dir);
        List<RemoteBlock> request = new java.util.ArrayList<>();
        for (int r = 0; r < blocks; r++) {
          request.add(
              RemoteBlock.newBuilder()
                  .setHostId("exec-1")
                  .setAgentAddress("127.0.0.1:" + sender.address().getPort())
                  .setSize(64)
                  .setBlock(
                      BlockRef.newBuilder().setBlockSet("spark/app/1").setBlock("shuffle_0_0_" + r))
                  .build());
        }
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        long t0 = System.nanoTime();
        List<java.util.concurrent.CompletableFuture<Long>> done =
            client.fetch(
                "tiny",
                request,
                d -> {
                  synchronized (got) {
                    byte[] b = new byte[d.readableBytes()];
                    d.readBytes(b);
                    got.write(b, 0, b.length);
                  }
                },
                1 << 20);
        for (java.util.concurrent.CompletableFuture<Long> f : done) {
          assertEquals(64L, f.get(60, TimeUnit.SECONDS));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        // A chunk or a first credit per block would need at least 100 s; 10 s leaves a loaded
        // CI machine room for 400 round trips.
        assertTrue(
            seconds < 10,
            blocks
                + " blocks of 64 bytes took "
                + seconds
                + " s under caps of "
                + cap
                + " B/s: each was charged more than its bytes");
        assertEquals(blocks * 64, got.size());
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** Registers {@code dir} as executor 1's Spark block directory with the serving agent. */
  private static void registerMapOutputs(CourierClient registrar, Path dir) throws Exception {
    Agents.registerSpark(registrar, "app", "1", dir);
  }

  private static RemoteBlock block(CourierAgent sender, int shuffle) {
    return RemoteBlock.newBuilder()
        .setHostId("exec-1")
        .setAgentAddress("127.0.0.1:" + sender.address().getPort())
        .setSize(SIZE)
        .setBlock(
            BlockRef.newBuilder()
                .setBlockSet("spark/app/1")
                .setBlock("shuffle_" + shuffle + "_0_0"))
        .build();
  }
}
