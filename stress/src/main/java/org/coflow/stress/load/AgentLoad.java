package org.coflow.stress.load;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.transport.TransportContext;
import org.coflow.stress.wire.MapOutput;

/**
 * {@code bin/coflow bench load}: one agent whose direct memory is capped, in a JVM of its own
 * ({@link AgentLoadMain}), under hostile idle connections ({@link IdleAttack}) while clients that
 * prove the secret run many block streams through it ({@link LoadStreams}: each fetch goes from the
 * client to the agent, from the agent to itself over an agent connection, and back). The agent's
 * limit on bytes of incomplete frames ({@code coflow.courier.maxBufferedBytes}) is the cap; the
 * JVM's direct memory ({@code -XX:MaxDirectMemorySize}) twice that.
 */
public final class AgentLoad {
  static final String HOST = "load-host";
  private static final int PARTITIONS = 16;
  private static final long MAX_HEAP = 512L << 20;

  /** How long refused streams are retried. */
  private static final long RETRY_SECONDS = 90;

  private final int streams;
  private final int idle;
  private final long cap;
  private final int clients;
  private final int blockSize;
  private int streamsPerConnection = 64;
  private long partialBytes = 1L << 20;
  private int dribblers;
  private int attackerHosts = 4;

  /**
   * @param streams block streams started at once
   * @param idle hostile connections opened before them
   * @param cap the agent's {@code maxBufferedBytes}; its JVM gets twice that of direct memory
   * @param clients client connections the streams share
   * @param blockSize bytes of each block
   */
  public AgentLoad(int streams, int idle, long cap, int clients, int blockSize) {
    if (streams < 1 || idle < 0 || clients < 1 || blockSize < 1 || cap < 1 << 20) {
      throw new IllegalArgumentException(
          "need streams >= 1, idle >= 0, clients >= 1, a block size >= 1 and a direct memory of"
              + " at least 1m, got "
              + streams
              + ", "
              + idle
              + ", "
              + clients
              + ", "
              + blockSize
              + ", "
              + cap);
    }
    this.streams = streams;
    this.idle = idle;
    this.cap = cap;
    this.clients = clients;
    this.blockSize = blockSize;
  }

  /** The agent's {@code coflow.courier.maxStreamsPerConnection} (default 64). */
  public AgentLoad streamsPerConnection(int n) {
    this.streamsPerConnection = n;
    return this;
  }

  /** Bytes of its 16 MiB request each authenticated idle peer sends (default 1 MiB). */
  public AgentLoad partialBytes(long n) {
    this.partialBytes = n;
    return this;
  }

  /**
   * Peers without the secret that send a HELLO one byte per segment while the streams run (default
   * none): what the agent holds for bytes that arrive one read at a time.
   */
  public AgentLoad dribblers(int n) {
    this.dribblers = n;
    return this;
  }

  /**
   * Loopback addresses the hostile connections come from, 127.0.0.2 on (default 4); the good
   * clients connect from 127.0.0.1. The agent bounds handshakes per remote address.
   */
  public AgentLoad attackerHosts(int n) {
    if (n < 1 || n > 250) {
      throw new IllegalArgumentException("--attacker-hosts is 1 to 250, got " + n);
    }
    this.attackerHosts = n;
    return this;
  }

  /** What a run measured; memory figures are the agent JVM's. */
  public record Result(
      int streams,
      int idle,
      int attackerHosts,
      int clients,
      int blockSize,
      int streamsPerConnection,
      long completed,
      long wrongBytes,
      long failed,
      long attempts,
      Map<String, Long> busy,
      Map<String, Long> errors,
      long clientConnectRefusals,
      int idleHeld,
      int idleStillOpen,
      Map<String, Long> idleRefused,
      int dribblers,
      long dribbled,
      long agentRefused,
      long bufferedCap,
      long bufferedPeak,
      long bufferedRefused,
      long directCap,
      long directPeak,
      long nettyDirectPeak,
      long heapPeak,
      long heapMax,
      boolean outOfMemory,
      List<String> outOfMemoryLines,
      int agentExit,
      double streamSeconds,
      Newcomers quiet,
      Newcomers hostile) {
    public long busyTotal() {
      return busy.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Every stream completed with the right bytes, every newcomer got its block and no JVM ran out
     * of memory.
     */
    public boolean ok() {
      return completed == streams
          && wrongBytes == 0
          && !outOfMemory
          && quiet.failed() == 0
          && hostile.failed() == 0;
    }
  }

  /**
   * A good client arriving afresh, {@code probes} times one after another: it connects (the whole
   * handshake, proving the secret), fetches one block, checks its bytes and leaves. Times in ms
   * from connect to the block's last byte; a probe that failed counts in {@code failed} and not in
   * the times.
   */
  public record Newcomers(int probes, int failed, double p50Millis, double p99Millis) {}

  /** How many newcomers each measurement sends. */
  static final int NEWCOMERS = 40;

  private Newcomers newcomers(
      TransportContext transport, InetSocketAddress at, MapOutput output, String blockSet) {
    List<Double> times = new ArrayList<>();
    int failed = 0;
    for (int i = 0; i < NEWCOMERS; i++) {
      int p = i % output.partitions();
      MapOutput.Check check = output.check(p);
      long t0 = System.nanoTime();
      try (CourierClient c = CourierClient.connect(transport, at, HOST)) {
        long n =
            c.fetch(
                    "newcomer",
                    List.of(output.block(p, blockSet, HOST, at)),
                    check::accept,
                    output.size(p))
                .get(0)
                .get(30, TimeUnit.SECONDS);
        if (check.matches(n)) {
          times.add((System.nanoTime() - t0) / 1e6);
        } else {
          failed++;
        }
      } catch (Exception e) {
        failed++;
      }
    }
    double[] v = times.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return new Newcomers(NEWCOMERS, failed, quantile(v, 0.5), quantile(v, 0.99));
  }

  private static double quantile(double[] sorted, double q) {
    return sorted.length == 0
        ? Double.NaN
        : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  public Result run(Path dir, PrintStream progress) throws Exception {
    Path served = Files.createDirectories(dir.resolve("served"));
    MapOutput output = MapOutput.write(served, PARTITIONS, blockSize, 7);
    Path secretFile = dir.resolve("secret");
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Files.write(secretFile, Base64.getEncoder().encode(key));
    Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-------"));
    Credentials cluster =
        Credentials.of(
            Credentials.CLUSTER, Secret.fromFile(secretFile, CourierConfig.SECRET_FILE.key()));
    List<String> settings =
        List.of(
            CourierConfig.SECRET_FILE.key() + "=" + secretFile,
            CourierConfig.MAX_BUFFERED_BYTES.key() + "=" + cap,
            CourierConfig.MAX_STREAMS_PER_CONNECTION.key() + "=" + streamsPerConnection,
            CourierConfig.THREADS.key() + "=2");
    NioEventLoopGroup group = new NioEventLoopGroup(2);
    ExecutorService workers = Executors.newFixedThreadPool(8);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    AgentProcess agent =
        AgentProcess.start(
            HOST, dir.toRealPath(), settings, 2 * cap, MAX_HEAP, dir.resolve("agent.log"));
    IdleAttack attack = null;
    LoadStreams load = null;
    try {
      InetSocketAddress at = new InetSocketAddress("127.0.0.1", agent.port());
      TransportContext transport = new TransportContext(group, CourierAgent.MAX_FRAME, cluster);
      String blockSet;
      try (CourierClient registrar = CourierClient.connect(transport, at, HOST)) {
        blockSet = registrar.register(output.registration("load", "0")).get(30, TimeUnit.SECONDS);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RETRY_SECONDS);
      load =
          new LoadStreams(transport, at, HOST, output, blockSet, clients, workers, timer, deadline);
      load.connect();
      newcomers(transport, at, output, blockSet); // warms both sides up: not measured
      Newcomers quiet = newcomers(transport, at, output, blockSet);
      say(progress, "load: newcomers without attackers: p99 %.1f ms", quiet.p99Millis());
      List<InetAddress> sources = new ArrayList<>();
      for (int h = 0; h < attackerHosts; h++) {
        sources.add(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (2 + h)}));
      }
      attack = new IdleAttack(at, sources, cluster, HOST, partialBytes);
      attack.open(idle);
      if (dribblers > 0) {
        attack.dribble(dribblers, 1);
      }
      say(
          progress,
          "load: %d hostile connections opened, %d held; starting %d streams",
          idle,
          attack.held(),
          streams);
      Newcomers hostile = newcomers(transport, at, output, blockSet);
      say(
          progress,
          "load: newcomers among the attackers: p99 %.1f ms, %d of %d failed",
          hostile.p99Millis(),
          hostile.failed(),
          hostile.probes());
      long t0 = System.nanoTime();
      CompletableFuture<Void> all = load.start(streams);
      while (true) {
        try {
          all.get(1, TimeUnit.SECONDS);
          break;
        } catch (TimeoutException e) {
          say(
              progress,
              "load: %d/%d streams completed, %d refused BUSY, %d other failures",
              load.completed(),
              streams,
              load.busy().values().stream().mapToLong(Long::longValue).sum(),
              load.errors().values().stream().mapToLong(Long::longValue).sum());
          // A dead agent, or a stream that never heard back after the retries' deadline.
          if (!agent.alive() || System.nanoTime() > deadline + TimeUnit.SECONDS.toNanos(30)) {
            break;
          }
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (dribblers > 0) {
        say(progress, "load: streams done; waiting for the dribblers to be closed");
        attack.awaitDribblers(TimeUnit.SECONDS.toMillis(RETRY_SECONDS));
      }
      Map<String, String> stats = agent.alive() ? agent.stats() : Map.of();
      int stillOpen = attack.stillOpen();
      int held = attack.held();
      attack.close();
      load.close();
      agent.close();
      List<String> oom = agent.outOfMemory();
      return new Result(
          streams,
          idle,
          attackerHosts,
          clients,
          blockSize,
          streamsPerConnection,
          load.completed(),
          load.wrongBytes(),
          streams - load.completed() - load.wrongBytes(),
          load.attempts(),
          load.busy(),
          load.errors(),
          load.connectRefusals(),
          held,
          stillOpen,
          attack.refused(),
          dribblers,
          attack.dribbled(),
          number(stats, "refused"),
          cap,
          number(stats, "buffered_peak"),
          number(stats, "buffered_refused"),
          number(stats, "direct_cap"),
          number(stats, "direct_peak"),
          number(stats, "netty_direct_peak"),
          number(stats, "heap_peak"),
          number(stats, "heap_max"),
          !oom.isEmpty() || Boolean.parseBoolean(stats.getOrDefault("oom", "false")),
          oom,
          agent.exitCode(),
          seconds,
          quiet,
          hostile);
    } finally {
      if (attack != null) {
        attack.close();
      }
      if (load != null) {
        load.close();
      }
      agent.close();
      timer.shutdownNow();
      workers.shutdownNow();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static long number(Map<String, String> stats, String key) {
    String v = stats.get(key);
    return v == null ? -1 : Long.parseLong(v);
  }

  private static void say(PrintStream progress, String format, Object... args) {
    if (progress != null) {
      progress.printf(Locale.ROOT, format + "%n", args);
    }
  }
}
