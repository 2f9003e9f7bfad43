package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.testing.Agents;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The latency lane: a small coflow's block does not wait behind another coflow's bulk. The bulk
 * connection is stalled outright (its reader holds the connection's event loop, as a lost segment
 * or a full buffer holds a TCP connection): on the lane the small block arrives anyway; without a
 * lane it shares the stalled connection (MaxNum 1) and cannot.
 */
@ExtendWith(LeakCheck.class)
class LatencyLaneTest {
  private static final int BULK = 8 << 20;
  private static final int SMALL = 2 << 10;

  @Test
  void aSmallCoflowPassesAStalledBulkOnTheLane(@TempDir Path tmp) throws Exception {
    assertTrue(
        smallArrivesPastStalledBulk(tmp, 1L << 20),
        "the small coflow's block waited behind the stalled bulk connection despite the lane");
  }

  @Test
  void withoutTheLaneItWaitsBehindTheBulk(@TempDir Path tmp) throws Exception {
    assertFalse(
        smallArrivesPastStalledBulk(tmp, 0),
        "without a lane the small block arrived past a stalled connection: the test stalls "
            + "nothing");
  }

  /**
   * Fetches an 8 MiB block of one coflow whose reader stalls at its first bytes, then a 2 KiB block
   * of another from the same host; releases the stall and checks both. Returns whether the small
   * block arrived while the bulk one was stalled.
   */
  private static boolean smallArrivesPastStalledBulk(Path tmp, long lane) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (CourierAgent server = CourierAgent.start(Agents.local("exec-1", 1));
        CourierAgent fetcher =
            CourierAgent.start(
                Agents.local("exec-0", 4)
                    .set(CourierConfig.MAX_NUM, 1)
                    .set(CourierConfig.LANE, lane))) {
      Path dir = Files.createDirectories(tmp.resolve("host-1")).toRealPath();
      byte[][] parts =
          ShuffleFiles.writeSparkMapOutput(
              new Random(1), List.of(dir), 0, 1, new int[] {BULK, SMALL}, true);
      try (CourierClient r = Agents.client(group, server.address(), "exec-1")) {
        Agents.registerSpark(r, "a", "1", dir);
      }
      CountDownLatch stalled = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ByteArrayOutputStream bulkBytes = new ByteArrayOutputStream();
      CompletableFuture<Long> bulk =
          fetcher
              .fetchBlocks(
                  "a/bulk",
                  List.of(block(server, 0, BULK)),
                  (i, data) -> {
                    stalled.countDown();
                    try {
                      // Holds the bulk connection's event loop: nothing behind it there moves.
                      release.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    append(bulkBytes, data);
                  })
              .get(0);
      assertTrue(stalled.await(20, TimeUnit.SECONDS), "the bulk block never started");
      ByteArrayOutputStream smallBytes = new ByteArrayOutputStream();
      CompletableFuture<Long> small =
          fetcher
              .fetchBlocks(
                  "a/small",
                  List.of(block(server, 1, SMALL)),
                  (i, data) -> append(smallBytes, data))
              .get(0);
      boolean arrived;
      try {
        small.get(lane > 0 ? 20 : 2, TimeUnit.SECONDS);
        arrived = true;
      } catch (TimeoutException e) {
        arrived = false;
      }
      assertFalse(bulk.isDone(), "the bulk block finished while stalled");
      release.countDown();
      assertEquals(BULK, bulk.get(60, TimeUnit.SECONDS));
      assertEquals(SMALL, small.get(60, TimeUnit.SECONDS));
      assertArrayEquals(parts[0], bulkBytes.toByteArray());
      assertArrayEquals(parts[1], smallBytes.toByteArray());
      assertTrue(
          fetcher.maxDataConnections() <= 1,
          "the lane counted against MaxNum: " + fetcher.maxDataConnections() + " bulk connections");
      assertEquals(
          lane > 0 ? 1 : 0,
          fetcher.metrics().laneStreams.sum(),
          "streams on the lane (the small block only: the bulk one is larger than the lane)");
      return arrived;
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static void append(ByteArrayOutputStream out, io.netty.buffer.ByteBuf data) {
    byte[] b = new byte[data.readableBytes()];
    data.getBytes(data.readerIndex(), b);
    out.writeBytes(b);
  }

  private static RemoteBlock block(CourierAgent server, int partition, int size) {
    return RemoteBlock.newBuilder()
        .setHostId("exec-1")
        .setAgentAddress("127.0.0.1:" + server.address().getPort())
        .setSize(size)
        .setBlock(
            BlockRef.newBuilder().setBlockSet("spark/a/1").setBlock("shuffle_0_1_" + partition))
        .build();
  }
}
