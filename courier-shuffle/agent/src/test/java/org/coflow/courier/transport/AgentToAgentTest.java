package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.DataOutputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.fetch.FileSink;
import org.coflow.courier.fetch.PeerConnection;
import org.coflow.courier.protocol.Preamble;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.server.AgentServer;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** One agent fetching from another over real sockets, real files, verified bytes. */
@ExtendWith(LeakCheck.class)
class AgentToAgentTest {
  private static final int MAX_FRAME = 1 << 20;
  private NioEventLoopGroup group;
  private AgentServer server;
  private BlockRegistry registry;
  private String set;
  private byte[][] parts;
  @TempDir Path tmp;

  @BeforeEach
  void start() throws Exception {
    group = new NioEventLoopGroup(2);
    Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
    parts =
        ShuffleFiles.writeSparkMapOutput(
            new Random(3), List.of(dir), 0, 1, new int[] {5 << 20, 1000, 0, 200_000}, true);
    registry = new BlockRegistry(List.of(tmp.toRealPath()));
    set = ShuffleFiles.registerSpark(registry, "app-1", "2", dir);
    server =
        AgentServer.bind(
            new TransportContext(group, MAX_FRAME),
            new InetSocketAddress("127.0.0.1", 0),
            "exec-2",
            org.coflow.courier.auth.KeyRing.open(),
            org.coflow.courier.transport.Limits.DEFAULTS,
            registry,
            null,
            64 << 10,
            org.coflow.courier.enforce.LinkRate.UNLIMITED,
            new org.coflow.courier.metrics.DataPlaneMetrics());
  }

  private FileSink sink(Path target) throws java.io.IOException {
    return FileSink.create(target.toAbsolutePath().normalize(), List.of(tmp.toRealPath()));
  }

  @AfterEach
  void stop() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private PeerConnection connect(long window) throws Exception {
    return PeerConnection.open(
            new TransportContext(group, MAX_FRAME),
            "exec-1",
            "exec-2",
            server.address(),
            0,
            window,
            false)
        .get(10, TimeUnit.SECONDS);
  }

  private BlockRef block(String name) {
    return BlockRef.newBuilder().setBlockSet(set).setBlock(name).build();
  }

  @Test
  void everyHandshakeCompletesHoweverFastTheAnswerComes() throws Exception {
    // The serving agent may answer the HELLO before open() returns: the handler must already
    // know its connection then (a CI run lost that race and a fetch hung until Spark's timeout).
    for (int i = 0; i < 300; i++) {
      try (PeerConnection peer = connect(64 << 10)) {
        assertTrue(peer.isOpen(), "connection " + i);
      }
    }
  }

  @Test
  void blocksArriveIntactThroughASmallCreditWindow() throws Exception {
    try (PeerConnection peer = connect(256 << 10)) {
      List<FileSink> sinks = new ArrayList<>();
      for (int r = 0; r < parts.length; r++) {
        FileSink sink = sink(tmp.resolve("out-" + r));
        sinks.add(sink);
        peer.fetch("app-1/0", block("shuffle_0_1_" + r), sink);
      }
      for (int r = 0; r < parts.length; r++) {
        Path got = sinks.get(r).done().get(30, TimeUnit.SECONDS);
        assertArrayEquals(parts[r], Files.readAllBytes(got), "partition " + r);
      }
    }
  }

  @Test
  void missingAndCorruptBlocksFailAloneAndLeaveNoFile() throws Exception {
    // Spark's checksum of partition 1 no longer matches its bytes.
    Path sums =
        ShuffleFiles.sparkPath(
            List.of(tmp.resolve("blockmgr").toRealPath()), 64, "shuffle_0_1_0.checksum.ADLER32");
    byte[] bad = Files.readAllBytes(sums);
    ByteBuffer.wrap(bad).putLong(8, 42);
    Files.write(sums, bad);
    try (PeerConnection peer = connect(1 << 20)) {
      FileSink missing = sink(tmp.resolve("missing"));
      FileSink corrupt = sink(tmp.resolve("corrupt"));
      FileSink good = sink(tmp.resolve("good"));
      peer.fetch("c", block("shuffle_0_9_0"), missing);
      peer.fetch("c", block("shuffle_0_1_1"), corrupt);
      peer.fetch("c", block("shuffle_0_1_3"), good);
      assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, failure(missing));
      assertEquals(ErrorCode.ERROR_CODE_CORRUPT, failure(corrupt));
      assertFalse(Files.exists(tmp.resolve("corrupt")), "a corrupt block is never handed over");
      assertArrayEquals(parts[3], Files.readAllBytes(good.done().get(10, TimeUnit.SECONDS)));
      assertTrue(peer.isOpen(), "the connection survives a failed block");
    }
  }

  @Test
  void aSegmentOfPartitionsArrivesAsOneStreamAndACorruptMiddlePartitionIsRefused()
      throws Exception {
    try (PeerConnection peer = connect(256 << 10)) {
      // Partitions 0-3 (5 MiB, 1000 bytes, empty, 200,000 bytes) as one segment.
      FileSink whole = sink(tmp.resolve("whole"));
      peer.fetch("c", block("shuffle_0_1_0_4"), whole);
      java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
      for (byte[] p : parts) {
        expected.write(p);
      }
      assertArrayEquals(
          expected.toByteArray(), Files.readAllBytes(whole.done().get(30, TimeUnit.SECONDS)));
    }
    // One byte of partition 1, in the middle of the segment, changes on disk.
    Path data =
        ShuffleFiles.sparkPath(
            List.of(tmp.resolve("blockmgr").toRealPath()), 64, "shuffle_0_1_0.data");
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(data, java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) ~parts[1][500]}), (5 << 20) + 500);
    }
    try (PeerConnection peer = connect(256 << 10)) {
      FileSink corrupt = sink(tmp.resolve("corrupt-segment"));
      FileSink after = sink(tmp.resolve("after"));
      peer.fetch("c", block("shuffle_0_1_0_4"), corrupt);
      peer.fetch("c", block("shuffle_0_1_2_4"), after);
      assertEquals(ErrorCode.ERROR_CODE_CORRUPT, failure(corrupt));
      assertFalse(Files.exists(tmp.resolve("corrupt-segment")), "nothing of it is handed over");
      byte[] tail = Files.readAllBytes(after.done().get(10, TimeUnit.SECONDS));
      assertArrayEquals(parts[3], tail, "the segment after it (an empty partition, then 3)");
    }
  }

  private static ErrorCode failure(FileSink sink) throws Exception {
    try {
      sink.done().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return ((ProtocolException) e.getCause()).code();
    }
    throw new AssertionError("the fetch should have failed");
  }

  @Test
  void wrongVersionsAndStrangersAreRefusedWhileOthersAreServed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(Preamble.MAGIC);
      out.writeInt(99);
      out.flush();
      byte[] reply = s.getInputStream().readAllBytes();
      String text = new String(reply, java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(
          text.contains("protocol version 99") && text.contains("speaks " + Preamble.VERSION),
          "an ERROR frame naming both versions: " + text);
    }
    try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
      OutputStream out = s.getOutputStream();
      out.write("GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      out.flush();
      assertEquals(-1, s.getInputStream().read(), "a stranger is closed without an answer");
    }
    try (PeerConnection peer = connect(1 << 20)) {
      FileSink sink = sink(tmp.resolve("after"));
      peer.fetch("c", block("shuffle_0_1_1"), sink);
      assertArrayEquals(parts[1], Files.readAllBytes(sink.done().get(10, TimeUnit.SECONDS)));
    }
  }

  @Test
  void aFetcherThatDisconnectsMidStreamLeavesTheServerClean() throws Exception {
    PeerConnection peer = connect(64 << 10);
    FileSink sink = sink(tmp.resolve("cut"));
    // No credit after the first 64 KiB: the stream is surely mid-way when the fetcher goes.
    peer.fetch("c", block("shuffle_0_1_0"), sink, 64 << 10, false, 0, 0, 0);
    Thread.sleep(50);
    assertTrue(parts[0].length > 64 << 10, "the block is longer than one window");
    peer.close();
    assertEquals(ErrorCode.ERROR_CODE_UNREACHABLE, failure(sink));
    try (PeerConnection again = connect(1 << 20)) {
      FileSink ok = sink(tmp.resolve("again"));
      again.fetch("c", block("shuffle_0_1_0"), ok);
      assertArrayEquals(parts[0], Files.readAllBytes(ok.done().get(30, TimeUnit.SECONDS)));
    }
  }
}
