package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.Agents;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four agents on loopback (four host ids, each with its own port and directories); on every host
 * eight clients fetch their reduce partition of three concurrent coflows from every other host,
 * some into files, some as streams: every byte arrives intact; no agent ever holds more than MaxNum
 * data connections, and with fewer peers than MaxNum the unified flows above MinSize are split over
 * more connections than there are peers.
 */
@ExtendWith(LeakCheck.class)
class MultiAgentTest {
  static final int HOSTS = 4;
  static final int CLIENTS = 8;
  static final int COFLOWS = 3;
  static final int MAX_NUM = 8;

  @Test
  void everyByteArrivesIntactWithinMaxNumConnections(@TempDir Path tmp) throws Exception {
    Random random = new Random(5);
    List<CourierAgent> agents = new ArrayList<>();
    NioEventLoopGroup clientGroup = new NioEventLoopGroup(2);
    List<CourierClient> clients = new ArrayList<>();
    try {
      Map<String, byte[]> expected = new HashMap<>();
      List<Path> dirs = new ArrayList<>();
      for (int h = 0; h < HOSTS; h++) {
        agents.add(
            CourierAgent.start(
                Agents.local("exec-" + h, 2)
                    .set(CourierConfig.MAX_NUM, MAX_NUM)
                    // Below most blocks (up to 300,000 bytes): a unified flow splits as soon as
                    // one such block waits, however fast the agents serve. With 1 MiB a fast run
                    // could serve every block before any pair had 1 MiB outstanding, and never
                    // split (seen once in CI).
                    .set(CourierConfig.MIN_SIZE, (long) (64 << 10))
                    // Blocks up to 64 KiB take the latency lanes, larger ones the bulk
                    // connections: both carry blocks of every coflow at once.
                    .set(CourierConfig.LANE, (long) (64 << 10))
                    .credentials(Agents.CLUSTER)));
        Path dir = Files.createDirectories(tmp.resolve("host-" + h + "/blockmgr")).toRealPath();
        dirs.add(dir);
        for (int s = 0; s < COFLOWS; s++) {
          int[] sizes = new int[CLIENTS];
          for (int r = 0; r < CLIENTS; r++) {
            sizes[r] = random.nextInt(300_000);
          }
          byte[][] parts =
              ShuffleFiles.writeSparkMapOutput(random, List.of(dir), s, h, sizes, true);
          for (int r = 0; r < CLIENTS; r++) {
            expected.put(s + "/" + h + "/" + r, parts[r]);
          }
        }
        try (CourierClient registrar =
            Agents.client(clientGroup, agents.get(h).address(), "exec-" + h, Agents.CLUSTER)) {
          assertEquals(
              "spark/app-1/" + h,
              registrar
                  .register(
                      RegisterSpark.newBuilder()
                          .setAppId("app-1")
                          .setExecId(Integer.toString(h))
                          .addLocalDirs(dir.toString())
                          .setSubDirsPerLocalDir(64)
                          .setChecksumAlgorithm("ADLER32")
                          .build())
                  .get(10, TimeUnit.SECONDS));
        }
      }

      Map<String, CompletableFuture<Long>> results = new HashMap<>();
      Map<String, ByteArrayOutputStream> streamed = new HashMap<>();
      Map<String, Path> files = new HashMap<>();
      for (int h = 0; h < HOSTS; h++) {
        for (int c = 0; c < CLIENTS; c++) {
          CourierClient client =
              Agents.client(clientGroup, agents.get(h).address(), "exec-" + h, Agents.CLUSTER);
          clients.add(client);
          for (int s = 0; s < COFLOWS; s++) {
            List<RemoteBlock> blocks = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            for (int src = 0; src < HOSTS; src++) {
              if (src == h) {
                continue;
              }
              String key = s + "/" + src + "/" + c;
              RemoteBlock.Builder b =
                  RemoteBlock.newBuilder()
                      .setHostId("exec-" + src)
                      .setAgentAddress("127.0.0.1:" + agents.get(src).address().getPort())
                      .setBlock(
                          BlockRef.newBuilder()
                              .setBlockSet("spark/app-1/" + src)
                              .setBlock("shuffle_" + s + "_" + src + "_" + c))
                      .setSize(expected.get(key).length);
              if ((c + s) % 2 == 0) {
                Path target = dirs.get(h).resolve("fetched-" + s + "-" + src + "-" + c);
                files.put(key + "@" + h, target);
                b.setTargetFile(target.toString());
              }
              blocks.add(b.build());
              keys.add(key + "@" + h);
            }
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            List<CompletableFuture<Long>> done =
                client.fetch(
                    "app-1/" + s,
                    blocks,
                    data -> {
                      byte[] bytes = new byte[data.readableBytes()];
                      data.getBytes(data.readerIndex(), bytes);
                      synchronized (sink) {
                        sink.write(bytes, 0, bytes.length);
                      }
                    },
                    64 << 10);
            for (int i = 0; i < keys.size(); i++) {
              results.put(keys.get(i), done.get(i));
              if (!files.containsKey(keys.get(i))) {
                streamed.put(keys.get(i), sink);
              }
            }
          }
        }
      }
      for (Map.Entry<String, CompletableFuture<Long>> e : results.entrySet()) {
        String key = e.getKey().substring(0, e.getKey().indexOf('@'));
        assertEquals(expected.get(key).length, e.getValue().get(60, TimeUnit.SECONDS), e.getKey());
        Path file = files.get(e.getKey());
        if (file != null) {
          assertArrayEquals(expected.get(key), Files.readAllBytes(file), e.getKey());
        }
      }
      // Streamed blocks of one request share a sink: their bytes are the concatenation, per block
      // in arrival order; check the total and that every streamed block's bytes occur in it.
      Map<ByteArrayOutputStream, List<String>> bySink = new HashMap<>();
      streamed.forEach((k, s) -> bySink.computeIfAbsent(s, x -> new ArrayList<>()).add(k));
      for (Map.Entry<ByteArrayOutputStream, List<String>> e : bySink.entrySet()) {
        long total = 0;
        for (String k : e.getValue()) {
          total += expected.get(k.substring(0, k.indexOf('@'))).length;
        }
        assertEquals(total, e.getKey().size(), "streamed bytes of " + e.getValue());
      }
      for (CourierAgent a : agents) {
        // MaxNum, plus at most one split connection still draining for each other peer whose
        // first connection opened meanwhile (a peer never waits for another's split to drain).
        assertTrue(
            a.maxDataConnections() <= MAX_NUM + HOSTS - 2,
            a.hostId()
                + " held "
                + a.maxDataConnections()
                + " data connections at once; MaxNum is "
                + MAX_NUM);
        assertTrue(
            a.maxDataConnections() > HOSTS - 1,
            a.hostId()
                + " held at most "
                + a.maxDataConnections()
                + " connections for "
                + (HOSTS - 1)
                + " peers: with fewer peers than MaxNum, unified flows "
                + "above MinSize must be split");
      }
    } finally {
      for (CourierClient c : clients) {
        c.close();
      }
      for (CourierAgent a : agents) {
        a.close();
      }
      clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void clientsCannotWriteOutsideRegisteredDirectoriesNorReachStrangers(@TempDir Path tmp)
      throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (CourierAgent agent = CourierAgent.start(Agents.local("exec-0", 1));
        CourierClient client = Agents.client(group, agent.address(), "exec-0")) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      client
          .register(
              RegisterSpark.newBuilder()
                  .setAppId("a")
                  .setExecId("0")
                  .addLocalDirs(dir.toString())
                  .setSubDirsPerLocalDir(64)
                  .build())
          .get(10, TimeUnit.SECONDS);
      RemoteBlock.Builder b =
          RemoteBlock.newBuilder()
              .setHostId("exec-9")
              .setAgentAddress("127.0.0.1:1")
              .setBlock(BlockRef.newBuilder().setBlockSet("spark/a/9").setBlock("shuffle_0_0_0"));
      List<CompletableFuture<Long>> r =
          client.fetch(
              "c",
              List.of(
                  b.clone().setTargetFile(tmp.resolve("outside").toString()).build(),
                  b.clone().setTargetFile(dir.resolve("inside").toString()).build(),
                  b.clone().setAgentAddress("not-an-address").build()),
              data -> {},
              1 << 20);
      assertEquals(ErrorCode.ERROR_CODE_INVALID, code(r.get(0)));
      assertEquals(ErrorCode.ERROR_CODE_UNREACHABLE, code(r.get(1)));
      assertEquals(ErrorCode.ERROR_CODE_INVALID, code(r.get(2)));
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static ErrorCode code(CompletableFuture<Long> f) throws Exception {
    try {
      f.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return ((ProtocolException) e.getCause()).code();
    }
    throw new AssertionError("expected a failure");
  }
}
