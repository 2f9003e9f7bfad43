package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.testing.Agents;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.Race;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a link rate, the sending agent serves the more important coflow first: when its block is
 * complete, the other coflow's block, requested earlier over the same unified connection, has
 * barely started; with equal priorities the two share the link.
 */
@ExtendWith(LeakCheck.class)
class PriorityTest {
  static final int SIZE = 3 << 20;

  /** Bytes of the low-priority block received when the high-priority one completed. */
  long lowBytesWhenHighDone(Path tmp, int lowPriority, int highPriority) throws Exception {
    return lowBytesWhenHighDone(tmp, lowPriority, highPriority, false);
  }

  /** The same, with the cap at the fetching host (on what it receives) instead of the sender. */
  long lowBytesWhenHighDone(Path tmp, int lowPriority, int highPriority, boolean capAtReceiver)
      throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    LinkRate cap = new LinkRate(12 << 20, 64 << 10);
    try (CourierAgent sender =
            CourierAgent.start(
                Agents.local("exec-1", 1).link(capAtReceiver ? LinkRate.UNLIMITED : cap));
        CourierAgent fetcher =
            CourierAgent.start(
                Agents.local("exec-0", 1).link(capAtReceiver ? cap : LinkRate.UNLIMITED))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      ShuffleFiles.writeSparkMapOutput(new Random(1), List.of(dir), 0, 0, new int[] {SIZE}, true);
      ShuffleFiles.writeSparkMapOutput(new Random(2), List.of(dir), 1, 0, new int[] {SIZE}, true);
      try (CourierClient registrar = Agents.client(group, sender.address(), "exec-1");
          CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
        Agents.registerSpark(registrar, "app", "1", dir);
        fetcher.setPriority("low", lowPriority);
        fetcher.setPriority("high", highPriority);
        return Race.firstBytesWhenSecondDone(
            client, "low", block(sender, 0), "high", block(sender, 1), SIZE, 256 << 10);
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static RemoteBlock block(CourierAgent sender, int shuffle) {
    return RemoteBlock.newBuilder()
        .setHostId("exec-1")
        .setAgentAddress("127.0.0.1:" + sender.address().getPort())
        .setBlock(
            BlockRef.newBuilder()
                .setBlockSet("spark/app/1")
                .setBlock("shuffle_" + shuffle + "_0_0"))
        .build();
  }

  @Test
  void theMoreImportantCoflowGoesFirst(@TempDir Path tmp) throws Exception {
    long low = lowBytesWhenHighDone(tmp.resolve("prio"), 5, 0);
    assertTrue(
        low < SIZE / 4,
        "the low-priority block had "
            + low
            + " of "
            + SIZE
            + " bytes when the high-priority one completed");
  }

  @Test
  void theMoreImportantCoflowGoesFirstAtACappedReceiver(@TempDir Path tmp) throws Exception {
    // Credit waits in one queue per host, by priority: without it both streams got equal turns.
    long low = lowBytesWhenHighDone(tmp.resolve("receiver"), 5, 0, true);
    assertTrue(
        low < SIZE / 3,
        "the low-priority block had "
            + low
            + " of "
            + SIZE
            + " bytes when the high-priority one completed under a receive cap");
  }

  @Test
  void equalPrioritiesShareTheLink(@TempDir Path tmp) throws Exception {
    long low = lowBytesWhenHighDone(tmp.resolve("equal"), 0, 0);
    assertTrue(
        low > SIZE / 2,
        "with equal priorities the earlier block had only "
            + low
            + " of "
            + SIZE
            + " bytes when the later one completed");
  }
}
