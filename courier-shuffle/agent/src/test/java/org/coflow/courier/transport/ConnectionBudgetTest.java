package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterSpark;
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

/** Courier Alg. 3 live: the MaxNum budget with more peers than it, splitting with fewer. */
@ExtendWith(LeakCheck.class)
class ConnectionBudgetTest {

  /**
   * Starts {@code peers} serving agents with one map output each; fetches all of it via one agent.
   */
  private static int[] fetchAll(
      Path tmp, int peers, int partitions, int partitionSize, int maxNum, long minSize)
      throws Exception {
    return fetchAll(tmp, peers, partitions, partitionSize, maxNum, minSize, 1, true);
  }

  /** The same, the blocks dealt round-robin to {@code coflows} coflows fetched at once. */
  private static int[] fetchAll(
      Path tmp,
      int peers,
      int partitions,
      int partitionSize,
      int maxNum,
      long minSize,
      int coflows,
      boolean merge)
      throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    List<CourierAgent> servers = new ArrayList<>();
    try (CourierAgent fetcher =
        CourierAgent.start(
            Agents.local("exec-0", 2)
                .set(CourierConfig.MAX_NUM, maxNum)
                // The bulk connections' budget alone: no block takes the latency lane.
                .set(CourierConfig.LANE, 0L)
                .set(CourierConfig.MERGE, merge)
                .set(CourierConfig.MIN_SIZE, (long) (minSize)))) {
      List<RemoteBlock> blocks = new ArrayList<>();
      List<byte[]> expected = new ArrayList<>();
      Path out = Files.createDirectories(tmp.resolve("fetched")).toRealPath();
      for (int h = 1; h <= peers; h++) {
        CourierAgent s = CourierAgent.start(Agents.local("exec-" + h, 1));
        servers.add(s);
        Path dir = Files.createDirectories(tmp.resolve("host-" + h)).toRealPath();
        int[] sizes = new int[partitions];
        java.util.Arrays.fill(sizes, partitionSize);
        byte[][] parts =
            ShuffleFiles.writeSparkMapOutput(new Random(h), List.of(dir), 0, h, sizes, true);
        try (CourierClient r = Agents.client(group, s.address(), "exec-" + h)) {
          Agents.registerSpark(r, "a", "" + h, dir);
        }
        for (int p = 0; p < partitions; p++) {
          expected.add(parts[p]);
          blocks.add(
              RemoteBlock.newBuilder()
                  .setHostId("exec-" + h)
                  .setAgentAddress("127.0.0.1:" + s.address().getPort())
                  .setSize(partitionSize)
                  .setBlock(
                      BlockRef.newBuilder()
                          .setBlockSet("spark/a/" + h)
                          .setBlock("shuffle_0_" + h + "_" + p))
                  .setTargetFile(out.resolve("b-" + h + "-" + p).toString())
                  .build());
        }
      }
      try (CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
        client
            .register(
                RegisterSpark.newBuilder()
                    .setAppId("a")
                    .setExecId("0")
                    .addLocalDirs(out.toString())
                    .setSubDirsPerLocalDir(64)
                    .build())
            .get(10, TimeUnit.SECONDS);
        List<CompletableFuture<Long>> done = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
          done.add(null);
        }
        for (int c = 0; c < coflows; c++) {
          List<RemoteBlock> mine = new ArrayList<>();
          for (int i = c; i < blocks.size(); i += coflows) {
            mine.add(blocks.get(i));
          }
          List<CompletableFuture<Long>> f = client.fetch("a/" + c, mine, d -> {}, 1 << 20);
          for (int k = 0, i = c; i < blocks.size(); i += coflows, k++) {
            done.set(i, f.get(k));
          }
        }
        for (int i = 0; i < blocks.size(); i++) {
          assertEquals(partitionSize, done.get(i).get(60, TimeUnit.SECONDS));
          assertArrayEquals(
              expected.get(i), Files.readAllBytes(Path.of(blocks.get(i).getTargetFile())));
        }
      }
      return new int[] {fetcher.maxDataConnections(), fetcher.dataConnectionsTo("exec-1")};
    } finally {
      for (CourierAgent s : servers) {
        s.close();
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void morePeersThanMaxNumNeverMeanMoreConnections(@TempDir Path tmp) throws Exception {
    int[] seen = fetchAll(tmp, 5, 2, 256 << 10, 2, 4L << 20);
    assertTrue(seen[0] <= 2, "held " + seen[0] + " data connections with MaxNum 2");
    assertEquals(2, seen[0], "the budget is used");
  }

  @Test
  void fewerPeersThanMaxNumSplitTheLargeUnifiedFlow(@TempDir Path tmp) throws Exception {
    int[] seen = fetchAll(tmp, 1, 16, 512 << 10, 4, 1L << 20);
    assertEquals(4, seen[0], "one peer with 8 MiB to send above MinSize gets MaxNum connections");
  }

  @Test
  void withoutMergingEachFlowHasItsOwnConnection(@TempDir Path tmp) throws Exception {
    // 16 MiB per coflow, so that the second coflow's fetch starts while the first one's is still
    // in flight even on a loaded machine (with 1 MiB each, the first could finish before the
    // second began and the count would be 1 with or without merging).
    int[] merged = fetchAll(tmp.resolve("m"), 1, 8, 4 << 20, 64, Long.MAX_VALUE / 2, 2, true);
    assertEquals(1, merged[0], "merged: the two coflows from one host share its connection");
    int[] apart = fetchAll(tmp.resolve("u"), 1, 8, 4 << 20, 64, Long.MAX_VALUE / 2, 2, false);
    assertEquals(2, apart[0], "without merging each coflow's flow from the host has its own");
    assertEquals(0, apart[1], "a flow's connection ends with its last block");
  }

  @Test
  void aNewPeerDoesNotWaitForASplitToDrain(@TempDir Path tmp) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    // exec-1 sends 1 MB/s: its two 2 MiB blocks, split over both of MaxNum 2's connections, run
    // for about four seconds. exec-2's block of 1 KB comes while they run.
    try (CourierAgent fetcher =
            CourierAgent.start(
                Agents.local("exec-0", 2)
                    .set(CourierConfig.MAX_NUM, 2)
                    .set(CourierConfig.MIN_SIZE, 1L << 20)
                    .set(CourierConfig.LANE, 0L)); // bulk connections only
        CourierAgent slow =
            CourierAgent.start(Agents.local("exec-1", 1).set(CourierConfig.LINK_RATE, 1e6));
        CourierAgent other = CourierAgent.start(Agents.local("exec-2", 1));
        CourierClient client = Agents.client(group, fetcher.address(), "exec-0")) {
      List<RemoteBlock> big = blocks(tmp, group, slow, 1, new int[] {2 << 20, 2 << 20});
      List<RemoteBlock> small = blocks(tmp, group, other, 2, new int[] {1000});
      // The second block is asked for once both connections are open, so each runs one.
      List<CompletableFuture<Long>> bigDone =
          new ArrayList<>(client.fetch("a/0", big.subList(0, 1), d -> {}, 1 << 20));
      for (int i = 0; i < 100 && fetcher.dataConnectionsTo("exec-1") < 2; i++) {
        Thread.sleep(20);
      }
      assertEquals(2, fetcher.dataConnectionsTo("exec-1"), "the large unified flow is split");
      bigDone.addAll(client.fetch("a/0", big.subList(1, 2), d -> {}, 1 << 20));
      Thread.sleep(100);
      CompletableFuture<Long> smallDone = client.fetch("a/1", small, d -> {}, 1 << 20).get(0);
      assertEquals(1000, smallDone.get(30, TimeUnit.SECONDS));
      for (CompletableFuture<Long> f : bigDone) {
        assertTrue(
            !f.isDone(),
            "exec-2's first connection opened while exec-1's split ran, not after it drained");
      }
      for (CompletableFuture<Long> f : bigDone) {
        assertEquals(2 << 20, f.get(30, TimeUnit.SECONDS));
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** One map output of {@code sizes} on {@code server}'s host {@code h}, as blocks to fetch. */
  private static List<RemoteBlock> blocks(
      Path tmp, NioEventLoopGroup group, CourierAgent server, int h, int[] sizes) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("host-" + h)).toRealPath();
    ShuffleFiles.writeSparkMapOutput(new Random(h), List.of(dir), 0, h, sizes, true);
    try (CourierClient r = Agents.client(group, server.address(), "exec-" + h)) {
      Agents.registerSpark(r, "a", "" + h, dir);
    }
    List<RemoteBlock> out = new ArrayList<>();
    for (int p = 0; p < sizes.length; p++) {
      out.add(
          RemoteBlock.newBuilder()
              .setHostId("exec-" + h)
              .setAgentAddress("127.0.0.1:" + server.address().getPort())
              .setSize(sizes[p])
              .setBlock(
                  BlockRef.newBuilder()
                      .setBlockSet("spark/a/" + h)
                      .setBlock("shuffle_0_" + h + "_" + p))
              .build());
    }
    return out;
  }
}
