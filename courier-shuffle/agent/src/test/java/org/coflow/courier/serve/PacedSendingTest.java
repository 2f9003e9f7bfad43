package org.coflow.courier.serve;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.BlockRequest;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.courier.enforce.DestinationOrder;
import org.coflow.courier.enforce.PaceTable;
import org.coflow.courier.enforce.PriorityPacer;
import org.coflow.courier.metrics.DataPlaneMetrics;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A serving connection pacing two coflows at the master's rates, on an injected clock: the event
 * loop's time and the paces' clock advance together, a millisecond at a time, and the test plays
 * the fetching agent (granting credit as chunks arrive).
 */
class PacedSendingTest {
  private static final int CHUNK = 64 << 10;

  @TempDir Path tmp;

  @Test
  void twoPacedCoflowsOnOneConnectionEachHoldTheirRate() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
    ShuffleFiles.writeSparkMapOutput(
        new Random(1), List.of(dir), 0, 1, new int[] {32 << 20, 32 << 20}, true);
    BlockRegistry registry = new BlockRegistry(List.of(tmp.toRealPath()));
    String set = ShuffleFiles.registerSpark(registry, "app", "1", dir);
    AtomicLong clock = new AtomicLong();
    DataPlaneMetrics metrics = new DataPlaneMetrics();
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.freezeTime();
    channel
        .pipeline()
        .addLast(
            new BlockSender(
                registry,
                CHUNK,
                4,
                PriorityPacer.UNLIMITED,
                new PaceTable(CHUNK, clock::get),
                new DestinationOrder(),
                "dst",
                false,
                64,
                metrics));
    double slowRate = 100e3;
    double fastRate = 2e6;
    // The slow coflow has all the credit it needs; the fast one is granted a chunk's worth each
    // time one arrives, as a fetching agent whose reader keeps up grants it.
    channel.writeInbound(request(1, "slow", set, "shuffle_0_1_0", 64L << 20, slowRate));
    channel.writeInbound(request(2, "fast", set, "shuffle_0_1_1", CHUNK, fastRate));
    Map<Long, Long> sent = new HashMap<>();
    long seconds = 10;
    for (long ms = 0; ms < seconds * 1000; ms++) {
      clock.addAndGet(1_000_000);
      channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
      channel.runPendingTasks();
      for (Frame f; (f = channel.readOutbound()) != null; ) {
        if (f.type() == FrameType.CHUNK) {
          long stream = ((Chunk) f.header()).getStreamId();
          long n = ((FileRegion) f.body()).count();
          sent.merge(stream, n, Long::sum);
          if (stream == 2) {
            channel.writeInbound(
                Frame.of(FrameType.CREDIT, Credit.newBuilder().setStreamId(2).setBytes(n).build()));
          }
        }
        f.release();
      }
    }
    channel.finishAndReleaseAll();
    long slow = sent.getOrDefault(1L, 0L);
    long fast = sent.getOrDefault(2L, 0L);
    assertTrue(
        slow >= 0.95 * slowRate * seconds,
        "the slow coflow sent " + slow + " bytes in " + seconds + " s at " + slowRate + " B/s");
    assertTrue(
        fast >= 0.95 * fastRate * seconds,
        "the fast coflow sent " + fast + " bytes in " + seconds + " s at " + fastRate + " B/s");
    // And neither went much past its rate (a bucket holds a chunk plus 50 ms of its rate).
    assertTrue(slow <= slowRate * seconds + 2 * CHUNK + 0.05 * slowRate, "slow " + slow);
    assertTrue(fast <= fastRate * seconds + 2 * CHUNK + 0.05 * fastRate, "fast " + fast);
    // The agent's metrics saw the timer: it fired within the clock's 1 ms step of its deadline.
    assertTrue(metrics.paceLateness.snapshot().count() > 0, "no pace timer was measured");
    assertTrue(
        metrics.paceLateness.snapshot().maxMillis() <= 1.0,
        "pace timer late by " + metrics.paceLateness.snapshot().maxMillis() + " ms");
  }

  private static Frame request(
      long stream, String coflow, String set, String block, long credit, double rate) {
    return Frame.of(
        FrameType.BLOCK_REQUEST,
        BlockRequest.newBuilder()
            .setStreamId(stream)
            .setCoflowId(coflow)
            .setBlock(BlockRef.newBuilder().setBlockSet(set).setBlock(block))
            .setDstHost("dst")
            .setCredit(credit)
            .setRateBytesPerSec(rate)
            .build());
  }
}
