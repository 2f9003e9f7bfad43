package org.coflow.coda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.service.MasterConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded coda-agent jar attached to this JVM at run time (as {@code -javaagent} would load it
 * at start), reporting to a real master on loopback: bytes through every JDK path counted exactly,
 * pacing at the master's rate without a spinning selector, the agent's own gRPC traffic unseen, and
 * a failing agent leaving every I/O call's result as it was.
 */
class CodaAgentAttachedTest {
  private static final int MB = 1 << 20;
  private static RecordingMaster master;

  @TempDir Path dir;

  @BeforeAll
  static void startMaster() throws Exception {
    master =
        new RecordingMaster(
            Config.defaults()
                .with(PolicyConfig.DELTA_MS, 50L)
                .with(MasterConfig.POLICY, "fair")
                .with(MasterConfig.DEFAULT_CAPACITY, 1e12));
  }

  @AfterAll
  static void stopMaster() throws Exception {
    attach("");
    master.close();
  }

  /**
   * Attaches the agent (again): every attach replaces the running agent's settings. With a master,
   * waits for the new session, so that no test's flow ends before the agent can report it.
   */
  private static void attach(String args) throws InterruptedException {
    long t0 = System.currentTimeMillis();
    ByteBuddyAgent.attach(
        new File(System.getProperty("coda.agent.jar")),
        Long.toString(ProcessHandle.current().pid()),
        args);
    if (args.contains("master=")) {
      await(
          () ->
              master.service.snapshot(0).agents().stream()
                  .anyMatch(a -> a.openedMillis() >= t0 && a.watching()),
          "the agent's new session");
    }
  }

  private static String masterArgs(String more) {
    return "master=127.0.0.1:"
        + master.port()
        + ",hostId=test-host,flowGap=300ms,reportInterval=50ms"
        + (more.isEmpty() ? "" : "," + more);
  }

  @Test
  void socketChannelBytesAreCountedExactly() throws Exception {
    attach(masterArgs("minFlowBytes=0"));
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<Long> received = drain(server);
      int local;
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        local = ((InetSocketAddress) c.getLocalAddress()).getPort();
        writeFully(c, ByteBuffer.allocate(1_234_567));
        ByteBuffer[] parts = {
          ByteBuffer.allocateDirect(100_000), ByteBuffer.allocate(200_001), ByteBuffer.allocate(3)
        };
        while (parts[2].hasRemaining()) {
          c.write(parts);
        }
        awaitSent(local, 1_234_567 + 300_004);
      }
      long total = 1_234_567 + 300_004;
      assertEquals(total, received.get(10, TimeUnit.SECONDS));
      assertReported(local, total);
    }
  }

  @Test
  void transferToASocketIsCountedExactly() throws Exception {
    attach(masterArgs("minFlowBytes=0"));
    Path file = dir.resolve("data");
    Files.write(file, new byte[2_500_003]);
    try (ServerSocketChannel server = listen();
        FileChannel f = FileChannel.open(file, StandardOpenOption.READ)) {
      CompletableFuture<Long> received = drain(server);
      int local;
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        local = ((InetSocketAddress) c.getLocalAddress()).getPort();
        long pos = 0;
        while (pos < f.size()) {
          pos += f.transferTo(pos, f.size() - pos, c);
        }
        awaitSent(local, 2_500_003L);
      }
      assertEquals(2_500_003L, received.get(10, TimeUnit.SECONDS));
      assertReported(local, 2_500_003L);
    }
  }

  @Test
  void socketStreamsAreCountedExactly() throws Exception {
    attach(masterArgs("minFlowBytes=0"));
    try (ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      CompletableFuture<Long> received =
          CompletableFuture.supplyAsync(
              () -> {
                try (Socket s = server.accept();
                    InputStream in = s.getInputStream()) {
                  return in.transferTo(OutputStream.nullOutputStream());
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      int local;
      try (Socket s = new Socket(server.getInetAddress(), server.getLocalPort())) {
        local = s.getLocalPort();
        OutputStream out = s.getOutputStream();
        out.write(new byte[1_000_003]);
        out.write(7);
        out.flush();
        awaitSent(local, 1_000_004L);
      }
      assertEquals(1_000_004L, received.get(10, TimeUnit.SECONDS));
      assertReported(local, 1_000_004L);
    }
  }

  @Test
  void streamsOfAChannelsSocketAreCountedExactly() throws Exception {
    attach(masterArgs("minFlowBytes=0"));
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<Long> received = drain(server);
      int local;
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        local = ((InetSocketAddress) c.getLocalAddress()).getPort();
        c.socket().getOutputStream().write(new byte[700_001]);
        awaitSent(local, 700_001L);
      }
      assertEquals(700_001L, received.get(10, TimeUnit.SECONDS));
      assertReported(local, 700_001L);
    }
  }

  @Test
  void theAgentsOwnGrpcTrafficIsNeverCounted() throws Exception {
    attach(masterArgs("minFlowBytes=0"));
    // Something real to report, so that the session is known to carry reports.
    socketChannelBytesAreCountedExactly();
    Thread.sleep(500);
    List<RecordingMaster.Seen> toMaster =
        master.flows(s -> s.getAttributesOrDefault("dst_port", "").equals("" + master.port()));
    assertTrue(toMaster.isEmpty(), "flows to the master's port were counted: " + toMaster.size());
  }

  /**
   * Aalo's rule: the first queue (4 MB here) goes at once; past it the flow waits for its rate and
   * then runs at it, the master's fair share of the host's 80 Mbit/s link: every byte past the
   * first queue is paced, none races ahead while the schedule is on its way.
   */
  @Test
  void aPacedBlockingConnectionRunsAtItsRate() throws Exception {
    double rate = 10e6;
    attach(masterArgs("minFlowBytes=1m,firstQueue=4m,linkRate=80m"));
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<Long> received = drain(server);
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        long sent = 0;
        long start = System.nanoTime();
        long from = 0;
        while (sent < 24L * MB) {
          if (sent == 4L * MB) {
            from = System.nanoTime();
          }
          chunk.clear();
          writeFully(c, chunk);
          sent += chunk.capacity();
        }
        double first = (from - start) / 1e9;
        double seconds = (System.nanoTime() - from) / 1e9;
        double throughput = 20.0 * MB / seconds;
        System.out.printf(
            "paced blocking: first queue in %.3f s, then %.2f MB/s at a rate of %.2f MB/s%n",
            first, throughput / 1e6, rate / 1e6);
        assertTrue(first < 0.2, "the first queue took " + first + " s: it must not wait");
        assertTrue(
            Math.abs(throughput / rate - 1) <= 0.10,
            "throughput " + throughput + " B/s is not within 10% of the rate " + rate);
      }
      received.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aPacedNonBlockingConnectionDoesNotSpin() throws Exception {
    double rate = 10e6;
    attach(masterArgs("minFlowBytes=1m,firstQueue=4m,linkRate=80m"));
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    try (ServerSocketChannel server = listen();
        Selector selector = Selector.open()) {
      CompletableFuture<Long> received = drain(server);
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        c.configureBlocking(false);
        SelectionKey key = c.register(selector, 0);
        ByteBuffer chunk = ByteBuffer.allocateDirect(256 * 1024);
        long sent = 0;
        long from = 0;
        long cpuFrom = 0;
        while (sent < 24L * MB) {
          if (from == 0 && sent >= 4L * MB) {
            from = System.nanoTime();
            cpuFrom = cpu.getCurrentThreadCpuTime();
          }
          if (!chunk.hasRemaining()) {
            chunk.clear();
          }
          sent += nettyWrite(c, key, selector, chunk);
        }
        double seconds = (System.nanoTime() - from) / 1e9;
        double cpuSeconds = (cpu.getCurrentThreadCpuTime() - cpuFrom) / 1e9;
        double throughput = (sent - 4.0 * MB) / seconds;
        System.out.printf(
            "paced non-blocking: %.2f MB/s at a rate of %.2f MB/s, writer CPU %.1f%% of %.2f s%n",
            throughput / 1e6, rate / 1e6, 100 * cpuSeconds / seconds, seconds);
        assertTrue(
            cpuSeconds / seconds < 0.10,
            "the paced writer used " + cpuSeconds + " s of CPU in " + seconds + " s");
        assertTrue(
            Math.abs(throughput / rate - 1) <= 0.10,
            "throughput " + throughput + " B/s is not within 10% of the rate " + rate);
      }
      received.get(10, TimeUnit.SECONDS);
    }
  }

  /**
   * One step of a writer driven as Netty's NIO transport drives it: write; on no progress ask for
   * OP_WRITE only if it is not set already, and wait for the selector; on progress clear it.
   */
  private static int nettyWrite(
      SocketChannel c, SelectionKey key, Selector selector, ByteBuffer chunk) throws Exception {
    int n = c.write(chunk);
    if (n == 0) {
      if ((key.interestOps() & SelectionKey.OP_WRITE) == 0) {
        key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
      }
      selector.select(1000);
      selector.selectedKeys().clear();
    } else if ((key.interestOps() & SelectionKey.OP_WRITE) != 0) {
      key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
    }
    return n;
  }

  /**
   * A flow past its first queue whose rate never comes (it is never reported: a threshold of 1 GB)
   * waits for coordination (2 s here) with its writer asleep, then goes unpaced.
   */
  @Test
  void aFlowWaitingForItsRateLeavesItsEventLoopAsleep() throws Exception {
    attach(masterArgs("minFlowBytes=1g,firstQueue=1m,coordinationWait=2s"));
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    try (ServerSocketChannel server = listen();
        Selector selector = Selector.open()) {
      CompletableFuture<Long> received = drain(server);
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        c.configureBlocking(false);
        SelectionKey key = c.register(selector, 0);
        ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
        long sent = 0;
        while (sent < MB) {
          if (!chunk.hasRemaining()) {
            chunk.clear();
          }
          sent += nettyWrite(c, key, selector, chunk);
        }
        long t0 = System.nanoTime();
        long cpu0 = cpu.getCurrentThreadCpuTime();
        long held = sent;
        while (System.nanoTime() - t0 < 1_500_000_000L) {
          if (!chunk.hasRemaining()) {
            chunk.clear();
          }
          held += nettyWrite(c, key, selector, chunk);
        }
        double cpuSeconds = (cpu.getCurrentThreadCpuTime() - cpu0) / 1e9;
        while (System.nanoTime() - t0 < 3_000_000_000L) {
          if (!chunk.hasRemaining()) {
            chunk.clear();
          }
          sent += nettyWrite(c, key, selector, chunk);
        }
        System.out.printf(
            "held for coordination: %d bytes in 1.5 s, writer CPU %.1f%%; then %d MB%n",
            held - MB, 100 * cpuSeconds / 1.5, (sent - MB) / MB);
        assertTrue(held - MB <= 64 * 1024, "wrote " + (held - MB) + " bytes while held");
        assertTrue(cpuSeconds / 1.5 < 0.10, "the held writer used " + cpuSeconds + " s of CPU");
        assertTrue(sent - MB > 10L * MB, "after the wait the flow goes unpaced: " + sent);
      }
      received.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFailingAgentLeavesEveryResultUnchanged() throws Exception {
    attach(masterArgs("minFlowBytes=0"));
    BrokenHooks.install();
    try {
      byte[] data = new byte[3 * MB + 17];
      new Random(7).nextBytes(data);
      try (ServerSocketChannel server = listen()) {
        CompletableFuture<byte[]> got = collect(server);
        try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
          ByteBuffer b = ByteBuffer.wrap(data, 0, MB);
          int n = 0;
          while (b.hasRemaining()) {
            n += c.write(b);
          }
          assertEquals(MB, n);
          ByteBuffer[] rest = {ByteBuffer.wrap(data, MB, MB), ByteBuffer.wrap(data, 2 * MB, 17)};
          long m = 0;
          while (rest[1].hasRemaining()) {
            m += c.write(rest);
          }
          assertEquals(MB + 17, m);
          Path file = dir.resolve("rest");
          Files.write(file, java.util.Arrays.copyOfRange(data, 2 * MB + 17, data.length));
          try (FileChannel f = FileChannel.open(file)) {
            long pos = 0;
            while (pos < f.size()) {
              pos += f.transferTo(pos, f.size() - pos, c);
            }
            assertEquals(MB, pos);
          }
        }
        assertArrayEquals(data, got.get(10, TimeUnit.SECONDS));
      }
    } finally {
      attach(masterArgs("minFlowBytes=0"));
    }
  }

  /**
   * Waits until the master heard of {@code bytes} sent from the port. Flows that end before the
   * agent's first report are pruned (CODA's rule), so the tests keep their connections open until
   * then.
   */
  private static void awaitSent(int localPort, long bytes) throws InterruptedException {
    await(
        () ->
            master
                    .flows(s -> s.getAttributesOrDefault("src_port", "").equals("" + localPort))
                    .stream()
                    .mapToLong(f -> f.sent)
                    .sum()
                == bytes,
        "the master to hear of " + bytes + " bytes sent from port " + localPort);
  }

  private void assertReported(int localPort, long bytes) throws InterruptedException {
    await(
        () ->
            master
                    .flows(s -> s.getAttributesOrDefault("src_port", "").equals("" + localPort))
                    .stream()
                    .filter(f -> f.finished)
                    .mapToLong(f -> f.sent)
                    .sum()
                == bytes,
        "the master to hear of " + bytes + " bytes from port " + localPort);
    List<RecordingMaster.Seen> flows =
        master.flows(s -> s.getAttributesOrDefault("src_port", "").equals("" + localPort));
    assertEquals(1, flows.size(), "one flow from port " + localPort);
    assertEquals("test-host", flows.get(0).spec.getSrcHost());
    assertEquals("test-host", flows.get(0).spec.getDstHost());
    assertEquals("", flows.get(0).spec.getCoflowId());
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  private static ServerSocketChannel listen() throws Exception {
    return ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
  }

  private static void writeFully(SocketChannel c, ByteBuffer b) throws Exception {
    while (b.hasRemaining()) {
      c.write(b);
    }
  }

  /** Accepts one connection and counts what it receives until the peer closes. */
  private static CompletableFuture<Long> drain(ServerSocketChannel server) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (SocketChannel s = server.accept()) {
            ByteBuffer b = ByteBuffer.allocate(1 << 16);
            long n = 0;
            int r;
            while ((r = s.read(b)) >= 0) {
              n += r;
              b.clear();
            }
            return n;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static CompletableFuture<byte[]> collect(ServerSocketChannel server) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (SocketChannel s = server.accept()) {
            return s.socket().getInputStream().readAllBytes();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
