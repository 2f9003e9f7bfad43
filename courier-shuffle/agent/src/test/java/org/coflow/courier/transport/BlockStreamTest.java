package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.client.BlockStream;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.testing.Agents;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Blocks read as blocking streams (what MapReduce reducers use): exact bytes with credit granted
 * only as the reader consumes; a stream closed early is cancelled and its connection serves the
 * next blocks; a peer that never answers fails the read after the idle timeout.
 */
@ExtendWith(LeakCheck.class)
class BlockStreamTest {

  private static RemoteBlock block(CourierAgent sender, int reduce) {
    return RemoteBlock.newBuilder()
        .setHostId("exec-1")
        .setAgentAddress("127.0.0.1:" + sender.address().getPort())
        .setBlock(
            BlockRef.newBuilder().setBlockSet("spark/app/1").setBlock("shuffle_0_0_" + reduce))
        .setSize(-1)
        .build();
  }

  @Test
  void streamsExactBytesAndSurvivesEarlyClose(@TempDir Path tmp) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    // One data connection: a cancelled stream that still counted as running would block the rest.
    try (CourierAgent sender = CourierAgent.start(Agents.local("exec-1", 1));
        CourierAgent other = CourierAgent.start(Agents.local("exec-2", 1));
        CourierAgent fetcher =
            CourierAgent.start(
                Agents.local("exec-0", 1)
                    .set(CourierConfig.MAX_NUM, 1)
                    .set(CourierConfig.MIN_SIZE, (long) (1e12)))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      byte[][] parts =
          ShuffleFiles.writeSparkMapOutput(
              new Random(9), List.of(dir), 0, 0, new int[] {3 << 20, 200_000, 5}, true);
      try (CourierClient registrar = Agents.client(group, sender.address(), "exec-1")) {
        Agents.registerSpark(registrar, "app", "1", dir);
      }
      try (CourierClient registrar = Agents.client(group, other.address(), "exec-2")) {
        Agents.registerSpark(registrar, "app", "1", dir);
      }
      try (CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
        for (int round = 0; round < 3; round++) {
          BlockStream early = client.stream("app/0", block(sender, 0), 64 << 10);
          assertEquals(3 << 20, early.length());
          assertEquals(1000, early.read(new byte[1000], 0, 1000));
          early.close();
          assertThrows(IOException.class, early::read, "a closed stream gives no more bytes");
        }
        for (int reduce = 0; reduce < 3; reduce++) {
          try (BlockStream in =
              client.stream("app/0", block(sender, reduce), 64 << 10).idleTimeout(20_000)) {
            assertEquals(parts[reduce].length, in.length());
            assertArrayEquals(parts[reduce], in.readAllBytes(), "block " + reduce);
          }
        }
        // The only connection must be free to go to another host: the cancelled streams ended.
        RemoteBlock elsewhere = block(other, 1).toBuilder().setHostId("exec-2").build();
        try (BlockStream in = client.stream("app/0", elsewhere, 64 << 10).idleTimeout(20_000)) {
          assertArrayEquals(parts[1], in.readAllBytes(), "from the second host");
        }
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void aSilentPeerTimesOut() throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (ServerSocket silent = new ServerSocket(0, 10, java.net.InetAddress.getLoopbackAddress());
        CourierAgent fetcher = CourierAgent.start(Agents.local("exec-0", 1));
        CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  Socket s = silent.accept(); // accepts, then never says a word
                  Thread.sleep(60_000);
                  s.close();
                } catch (Exception e) {
                  // test over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      RemoteBlock b =
          RemoteBlock.newBuilder()
              .setHostId("exec-7")
              .setAgentAddress("127.0.0.1:" + silent.getLocalPort())
              .setBlock(BlockRef.newBuilder().setBlockSet("spark/app/7").setBlock("shuffle_0_0_0"))
              .build();
      long t0 = System.nanoTime();
      try (BlockStream in = client.stream("app/0", b, 64 << 10).idleTimeout(500)) {
        assertThrows(SocketTimeoutException.class, in::length);
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 450 && ms < 10_000, "timed out after " + ms + " ms");
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
