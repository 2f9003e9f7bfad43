package org.coflow.courier.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.FetchRequest;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.Preamble;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;

/** Peers that try to make an agent hold memory, descriptors and streams it cannot afford. */
class ResourceTest extends AttackBase {
  /** Whether the agent closed {@code s} within 5 s (after whatever it sent). */
  private static boolean closedByAgent(Socket s) throws Exception {
    s.setSoTimeout(5000);
    InputStream in = s.getInputStream();
    try {
      while (in.read() >= 0) {
        // an ERROR frame, then the end
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (java.net.SocketException e) {
      return true; // reset
    }
  }

  private static Socket openWithPreamble(CourierAgent agent) throws Exception {
    Socket s = new Socket("127.0.0.1", agent.address().getPort());
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    out.writeInt(Preamble.MAGIC);
    out.writeInt(Preamble.VERSION);
    out.flush();
    return s;
  }

  @Test
  void aFirstFrameAnnouncingSixteenMebibytesIsRefusedAtOnce() throws Exception {
    try (CourierAgent agent = Attack.standalone("h1", tmp.toRealPath(), null)) {
      List<Socket> sockets = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        Socket s = openWithPreamble(agent);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        // A HELLO whose header is the whole 16 MiB frame, sent in part and never completed.
        out.writeInt((16 << 20) - 1);
        out.writeByte(1);
        out.writeInt((16 << 20) - 6);
        out.write(new byte[64 << 10]);
        out.flush();
        sockets.add(s);
      }
      for (Socket s : sockets) {
        assertTrue(closedByAgent(s), "a 16 MiB first frame is refused, not buffered");
        s.close();
      }
      try (CourierClient good = Attack.stranger(group, agent)) {
        Path dir = Files.createDirectories(tmp.resolve("exec"));
        assertEquals(
            "spark/app-1/1",
            good.register(Attack.spark("app-1", "1", dir, true)).get(10, TimeUnit.SECONDS));
      }
    }
  }

  @Test
  void silentConnectionsNeverKeepAGoodClientOutAndAreClosedAfterTheHandshakeTimeout()
      throws Exception {
    try (CourierAgent agent =
        Attack.standalone(
            "h1",
            tmp.toRealPath(),
            null,
            AgentOptions.forHost("h1")
                .set(CourierConfig.MAX_HANDSHAKING, 16)
                .set(CourierConfig.HANDSHAKE_TIMEOUT, 3000L))) {
      List<Socket> silent = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        silent.add(new Socket("127.0.0.1", agent.address().getPort()));
      }
      // Every handshake slot is held by a silent connection; a client that completes its
      // handshake still gets in at once, long before any silent one times out.
      long t0 = System.nanoTime();
      try (CourierClient good = Attack.stranger(group, agent)) {
        Path dir = Files.createDirectories(tmp.resolve("exec"));
        good.register(Attack.spark("app-1", "1", dir, true)).get(10, TimeUnit.SECONDS);
      }
      long tookMillis = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(tookMillis < 2000, "the good client waited " + tookMillis + " ms");
      // Each newcomer beyond the 16 slots closed the oldest silent connection with a BUSY frame
      // (24 for the silent ones, one more for the good client); the 15 left are closed without a
      // word when their handshake time is up.
      int evicted = 0;
      int closedSilently = 0;
      for (Socket s : silent) {
        s.setSoTimeout(6000);
        if (s.getInputStream().read() >= 0) {
          evicted++; // the BUSY error frame
        } else {
          closedSilently++;
        }
      }
      assertEquals(25, evicted, "the oldest handshaking connections make room");
      assertEquals(15, closedSilently, "a connection that never says HELLO is closed");
      silent.forEach(ResourceTest::closeQuietly);
    }
  }

  @Test
  void streamsPerConnectionAreBounded() throws Exception {
    Path root = tmp.toRealPath();
    Path dir = Files.createDirectories(root.resolve("exec"));
    int[] sizes = new int[24];
    java.util.Arrays.fill(sizes, 128 << 10);
    ShuffleFiles.writeSparkMapOutput(new Random(8), List.of(dir), 0, 0, sizes, true);
    // The source sends 256 KB/s, one block after another: the first of eight blocks of 128 KiB
    // ends after 0.2 s (its link's bucket holds 64 KiB and 50 ms), the eighth after 4 s.
    try (CourierAgent source =
            Attack.standalone(
                "src",
                root,
                null,
                AgentOptions.forHost("src").set(CourierConfig.LINK_RATE, 256e3));
        CourierAgent agent =
            Attack.standalone(
                "dst",
                root,
                null,
                AgentOptions.forHost("dst").set(CourierConfig.MAX_STREAMS_PER_CONNECTION, 8));
        CourierClient registrar = Attack.stranger(group, source);
        CourierClient client = Attack.stranger(group, agent)) {
      String set =
          registrar.register(Attack.spark("app-1", "0", dir, true)).get(10, TimeUnit.SECONDS);
      List<RemoteBlock> blocks = new ArrayList<>();
      for (int r = 0; r < 24; r++) {
        blocks.add(Attack.block(source, set, "shuffle_0_0_" + r, null));
      }
      // Eight in flight, eight more waiting in the agent, the next eight refused with BUSY.
      List<CompletableFuture<Long>> running = fetchAll(client, blocks.subList(0, 8));
      List<CompletableFuture<Long>> waiting = fetchAll(client, blocks.subList(8, 16));
      List<CompletableFuture<Long>> refused = fetchAll(client, blocks.subList(16, 24));
      for (CompletableFuture<Long> f : refused) {
        ExecutionException e =
            assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertEquals(ErrorCode.ERROR_CODE_BUSY, ((ProtocolException) e.getCause()).code());
      }
      for (CompletableFuture<Long> f : running) {
        assertEquals(128 << 10, f.get(20, TimeUnit.SECONDS));
      }
      for (CompletableFuture<Long> f : waiting) {
        assertEquals(128 << 10, f.get(20, TimeUnit.SECONDS));
      }
    }
    // One request naming more blocks than a connection may have in flight is refused whole.
    try (CourierAgent agent =
            Attack.standalone(
                "dst",
                root,
                null,
                AgentOptions.forHost("dst").set(CourierConfig.MAX_STREAMS_PER_CONNECTION, 8));
        CourierClient greedy = Attack.stranger(group, agent)) {
      List<RemoteBlock> many = new ArrayList<>();
      for (int r = 0; r < 9; r++) {
        many.add(Attack.block(agent, "spark/app-1/0", "shuffle_0_0_" + r, null));
      }
      for (CompletableFuture<Long> f : fetchAll(greedy, many)) {
        ExecutionException e =
            assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertEquals(ErrorCode.ERROR_CODE_BUSY, ((ProtocolException) e.getCause()).code());
      }
    }
  }

  private static List<CompletableFuture<Long>> fetchAll(
      CourierClient client, List<RemoteBlock> blocks) {
    return client.fetchBlocks(
        "c", blocks, (i, data) -> data.skipBytes(data.readableBytes()), 1 << 20);
  }

  @Test
  void aNulInAPathGetsAnErrorNamingIt() throws Exception {
    Path root = tmp.toRealPath();
    Path dir = Files.createDirectories(root.resolve("exec"));
    try (CourierAgent agent = Attack.standalone("h1", root, null)) {
      try (CourierClient client = Attack.stranger(group, agent)) {
        assertEquals(
            "spark/app-1/1",
            client.register(Attack.spark("app-1", "1", dir, true)).get(10, TimeUnit.SECONDS));
        // A target file with a NUL: that block fails, the connection goes on.
        ExecutionException target =
            assertThrows(
                ExecutionException.class,
                () ->
                    Attack.fetch(
                            client,
                            Attack.block(agent, "spark/app-1/1", "shuffle_0_0_0", dir + "/x\0y"),
                            new ByteArrayOutputStream())
                        .get(10, TimeUnit.SECONDS));
        assertEquals(ErrorCode.ERROR_CODE_INVALID, ((ProtocolException) target.getCause()).code());
        assertEquals(
            "spark/app-1/2",
            client.register(Attack.spark("app-1", "2", dir, true)).get(10, TimeUnit.SECONDS));
      }
      // A registered directory with a NUL: refused with an error naming it (a registration
      // error ends the client's connection, as every protocol error does).
      try (CourierClient client = Attack.stranger(group, agent)) {
        ExecutionException e =
            assertThrows(
                ExecutionException.class,
                () ->
                    client
                        .register(
                            Attack.spark("app-1", "3", dir, true).toBuilder()
                                .setLocalDirs(0, dir + "/a\0b")
                                .build())
                        .get(10, TimeUnit.SECONDS));
        ProtocolException p = (ProtocolException) e.getCause();
        assertEquals(ErrorCode.ERROR_CODE_INVALID, p.code(), p.getMessage());
        assertTrue(p.getMessage().contains("a?b"), p.getMessage());
      }
    }
  }

  @Test
  void aClientThatStopsReadingCannotTakeTheRelayBudgetFromAnother() throws Exception {
    Path root = tmp.toRealPath();
    Path dir = Files.createDirectories(root.resolve("exec"));
    int[] sizes = new int[8];
    java.util.Arrays.fill(sizes, 4 << 20);
    byte[][] written =
        ShuffleFiles.writeSparkMapOutput(new Random(9), List.of(dir), 0, 0, sizes, true);
    org.coflow.courier.auth.Secret greedyToken =
        org.coflow.courier.auth.Secret.ofEngine("the greedy job's token".getBytes(), "token");
    org.coflow.courier.auth.Secret goodToken =
        org.coflow.courier.auth.Secret.ofEngine("the good job's token".getBytes(), "token");
    try (CourierAgent source = Attack.standalone("src", root, null);
        CourierAgent agent =
            CourierAgent.start(
                AgentOptions.forHost("dst")
                    .bind(new java.net.InetSocketAddress("127.0.0.1", 0))
                    .set(CourierConfig.MAX_BUFFERED_BYTES, 4L << 20)
                    .keys(
                        org.coflow.courier.auth.KeyRing.open()
                            .refuseAnonymousClients()
                            .addClient(Credentials.mapReduce("job_1_0001"), greedyToken)
                            .addClient(Credentials.mapReduce("job_1_0002"), goodToken)));
        CourierClient registrar = Attack.stranger(group, source)) {
      String set =
          registrar.register(Attack.spark("app-1", "0", dir, true)).get(10, TimeUnit.SECONDS);
      // The greedy job asks for 32 MiB, grants credit for all of it and never reads: what the
      // agent relays piles up in its outbound buffer, reserved in the relay budget.
      io.netty.channel.Channel[] greedy = new io.netty.channel.Channel[1];
      java.util.concurrent.CountDownLatch admitted = new java.util.concurrent.CountDownLatch(1);
      new org.coflow.courier.transport.TransportContext(
              group,
              CourierAgent.MAX_FRAME,
              Credentials.of(Credentials.mapReduce("job_1_0001"), greedyToken))
          .connect(
              agent.address(),
              Hello.newBuilder().setRole(Role.ROLE_CLIENT).setHostId("dst").build(),
              "dst",
              new io.netty.channel.SimpleChannelInboundHandler<Frame>() {
                @Override
                protected void channelRead0(io.netty.channel.ChannelHandlerContext ctx, Frame f) {
                  if (f.type() == FrameType.HELLO_ACK) {
                    ctx.channel().config().setAutoRead(false); // reads nothing from now on
                    admitted.countDown();
                  }
                }
              },
              ch -> {
                greedy[0] = ch;
                // A small receive window: what the agent relays stays in its own buffers soon.
                ch.config().setOption(io.netty.channel.ChannelOption.SO_RCVBUF, 16 << 10);
              })
          .sync();
      assertTrue(admitted.await(10, TimeUnit.SECONDS), "the greedy job is admitted");
      FetchRequest.Builder req = FetchRequest.newBuilder().setRequestId(1).setCoflowId("g");
      for (int r = 0; r < sizes.length; r++) {
        req.addBlocks(Attack.block(source, set, "shuffle_0_0_" + r, null)).setWindow(16 << 20);
      }
      greedy[0].writeAndFlush(Frame.of(FrameType.FETCH_REQUEST, req.build()));
      Thread.sleep(500); // credit for a stream counts once the stream has started
      for (int i = 0; i < sizes.length; i++) {
        long stream = 1L << 20 | i;
        greedy[0].writeAndFlush(
            Frame.of(
                FrameType.CREDIT,
                Credit.newBuilder().setStreamId(stream).setBytes(16 << 20).build()));
      }
      Thread.sleep(1500); // the greedy job's streams take what they can
      // The good job still gets its block, byte for byte: the greedy one holds at most half of
      // the budget, and the rest is shared with whoever comes next.
      try (CourierClient good = Attack.job(group, agent, "job_1_0002", goodToken)) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        assertEquals(
            4 << 20,
            Attack.fetch(good, Attack.block(source, set, "shuffle_0_0_3", null), got)
                .get(20, TimeUnit.SECONDS));
        assertArrayEquals(written[3], got.toByteArray());
      }
      assertTrue(greedy[0].isActive(), "the greedy job was not cut off, only bounded");
      greedy[0].close().sync();
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (java.io.IOException e) {
      // closed
    }
  }

  @Test
  void connectionsStayWithinHalfTheProcesssOpenFiles() {
    // 4,096 idle connections admitted under `ulimit -n 1024` exhausted the process at 975.
    assertEquals(512, org.coflow.courier.transport.Limits.withinDescriptors(4096, 1024));
    assertEquals(4096, org.coflow.courier.transport.Limits.withinDescriptors(4096, 1 << 20));
    assertEquals(4096, org.coflow.courier.transport.Limits.withinDescriptors(4096, -1));
    assertTrue(org.coflow.courier.transport.Limits.maxFileDescriptors() > 0, "Linux says");
  }
}
