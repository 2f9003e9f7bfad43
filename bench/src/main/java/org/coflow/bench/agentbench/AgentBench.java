package org.coflow.bench.agentbench;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.Adler32;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.transport.TransportContext;

/**
 * Fetch throughput and CPU per GB through two Courier agents against a direct zero-copy baseline
 * ({@link DirectBaseline}), in the same JVM, on the same file, alternating runs. Both deliver into
 * files the clients name and both verify every block (ADLER32). CPU is the whole process's, so both
 * sides of each path count; the JIT compilers' share is measured apart.
 */
public final class AgentBench {
  /**
   * What one comparison measured (medians over the runs). CPU seconds are the whole process's, both
   * agents and the clients; the JIT compilers' share is counted apart ({@code *JitSeconds}):
   * compiling is a one-time cost of a new JVM, charged to whichever path happens to run a method
   * hot first, while the goal is about the steady cost of moving bytes.
   */
  public record Result(
      long bytes,
      int blocks,
      int clients,
      int runs,
      int maxNum,
      int warmupRounds,
      double courierSeconds,
      double baselineSeconds,
      double courierCpuSeconds,
      double baselineCpuSeconds,
      double courierJitSeconds,
      double baselineJitSeconds,
      double pairedThroughputRatio,
      double pairedCpuPerGbRatio) {
    public double courierGbPerSecond() {
      return bytes / courierSeconds / 1e9;
    }

    public double baselineGbPerSecond() {
      return bytes / baselineSeconds / 1e9;
    }

    /**
     * Courier's throughput over the baseline's (goal at least 1.00): the median over the rounds of
     * each round's ratio. A round runs both paths back to back, so a ratio compares runs made under
     * the same load of a shared, noisy machine; the ratio of the medians ({@link
     * #throughputRatioOfMedians()}) lets one slow spell weigh on a single path.
     */
    public double throughputRatio() {
      return pairedThroughputRatio;
    }

    public double throughputRatioOfMedians() {
      return baselineSeconds / courierSeconds;
    }

    /**
     * Courier's CPU seconds per GB over the baseline's, JIT compilation excluded (goal at most
     * 1.05): the median of the rounds' ratios, as for {@link #throughputRatio()}.
     */
    public double cpuPerGbRatio() {
      return pairedCpuPerGbRatio;
    }

    /** The ratio of the median CPU seconds, JIT excluded. */
    public double cpuPerGbRatioOfMedians() {
      double courier = courierCpuSeconds - courierJitSeconds;
      double baseline = baselineCpuSeconds - baselineJitSeconds;
      // CPU clocks tick every 10 ms: on a run too short to tell the JIT's share apart, keep it in.
      return courier > 0 && baseline > 0 ? courier / baseline : cpuPerGbRatioWithJit();
    }

    /**
     * The same ratio with the JIT compilers' CPU left in (1 if the runs were too short to measure).
     */
    public double cpuPerGbRatioWithJit() {
      return baselineCpuSeconds > 0 ? courierCpuSeconds / baselineCpuSeconds : 1;
    }
  }

  /**
   * Rounds of both paths before measuring: at least {@link #MIN_WARMUP}, then until a round's JIT
   * compilation is under {@link #QUIET_JIT} of its CPU (perf showed C2 busy for a third of the CPU
   * through the first rounds), at most {@link #MAX_WARMUP}.
   */
  static final int MIN_WARMUP = 3;

  static final int MAX_WARMUP = 12;
  static final double QUIET_JIT = 0.02;

  private final long size;
  private final int blocks;
  private final int clients;
  private final int runs;
  private final int maxNum;
  private final Path dir;

  /**
   * @param maxNum the fetching agent's connection budget (Courier's MaxNum)
   */
  public AgentBench(long size, int blocks, int clients, int runs, int maxNum, Path dir) {
    if (size < blocks || blocks < clients || clients < 1 || runs < 1) {
      throw new IllegalArgumentException(
          "need size >= blocks >= clients >= 1 and runs >= 1, got size "
              + size
              + ", "
              + blocks
              + " blocks, "
              + clients
              + " clients, "
              + runs
              + " runs");
    }
    this.size = size;
    this.blocks = blocks;
    this.clients = clients;
    this.runs = runs;
    this.maxNum = maxNum;
    this.dir = dir;
  }

  public Result run() throws Exception {
    Path served = Files.createDirectories(dir.resolve("served")).toRealPath();
    Path fetched = Files.createDirectories(dir.resolve("fetched")).toRealPath();
    long[] bounds = new long[blocks + 1];
    long[] sums = new long[blocks];
    Path data = writeMapOutput(served, bounds, sums);
    NioEventLoopGroup clientGroup = new NioEventLoopGroup(2);
    // Both agents and their clients prove one cluster secret (as a standalone deployment would),
    // so every client of the fetching agent may write into the set one of them registered.
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    Credentials cluster = Credentials.of(Credentials.CLUSTER, Secret.of(key, "bench secret"));
    TransportContext transport = new TransportContext(clientGroup, CourierAgent.MAX_FRAME, cluster);
    try (CourierAgent sender =
            CourierAgent.start(
                AgentOptions.forHost("bench-src")
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .credentials(cluster)
                    .roots(List.of(dir.toRealPath()))
                    .clientRegistrations(true));
        CourierAgent fetcher =
            CourierAgent.start(
                AgentOptions.forHost("bench-dst")
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .set(CourierConfig.MAX_NUM, maxNum)
                    .credentials(cluster)
                    .roots(List.of(dir.toRealPath()))
                    .clientRegistrations(true));
        DirectBaseline baseline = new DirectBaseline(clientGroup, data.toFile())) {
      List<CourierClient> courierClients = new ArrayList<>();
      try (CourierClient registrar =
              CourierClient.connect(transport, sender.address(), "bench-src");
          CourierClient local = CourierClient.connect(transport, fetcher.address(), "bench-dst")) {
        registrar
            .register(
                RegisterSpark.newBuilder()
                    .setAppId("bench")
                    .setExecId("src")
                    .addLocalDirs(served.toString())
                    .setSubDirsPerLocalDir(1)
                    .setChecksumAlgorithm("ADLER32")
                    .build())
            .get(30, TimeUnit.SECONDS);
        local
            .register(
                RegisterSpark.newBuilder()
                    .setAppId("bench")
                    .setExecId("dst")
                    .addLocalDirs(fetched.toString())
                    .setSubDirsPerLocalDir(1)
                    .build())
            .get(30, TimeUnit.SECONDS);
      }
      for (int c = 0; c < clients; c++) {
        courierClients.add(CourierClient.connect(transport, fetcher.address(), "bench-dst"));
      }
      double[] courierWall = new double[runs];
      double[] courierCpu = new double[runs];
      double[] baseWall = new double[runs];
      double[] baseCpu = new double[runs];
      double[] courierJit = new double[runs];
      double[] baseJit = new double[runs];
      int warmup = 0;
      Run courierRun = () -> courier(courierClients, sender, fetched, bounds);
      Run directRun = () -> direct(clientGroup, baseline, fetched, bounds, sums);
      while (warmup < MAX_WARMUP) {
        double[] c = measure(courierRun, fetched, "courier-");
        double[] b = measure(directRun, fetched, "direct-");
        warmup++;
        if (warmup >= MIN_WARMUP && c[2] + b[2] < QUIET_JIT * (c[1] + b[1])) {
          break;
        }
      }
      for (int r = 0; r < runs; r++) {
        // Each path goes first in every other round: neither always runs on the other's heels.
        double[] c;
        double[] b;
        if (r % 2 == 0) {
          c = measure(courierRun, fetched, "courier-");
          b = measure(directRun, fetched, "direct-");
        } else {
          b = measure(directRun, fetched, "direct-");
          c = measure(courierRun, fetched, "courier-");
        }
        courierWall[r] = c[0];
        courierCpu[r] = c[1];
        courierJit[r] = c[2];
        baseWall[r] = b[0];
        baseCpu[r] = b[1];
        baseJit[r] = b[2];
      }
      for (CourierClient c : courierClients) {
        c.close();
      }
      double[] throughput = new double[runs];
      double[] cpu = new double[runs];
      for (int r = 0; r < runs; r++) {
        throughput[r] = baseWall[r] / courierWall[r];
        double courier = courierCpu[r] - courierJit[r];
        double base = baseCpu[r] - baseJit[r];
        cpu[r] =
            courier > 0 && base > 0
                ? courier / base
                : (baseCpu[r] > 0 ? courierCpu[r] / baseCpu[r] : 1);
      }
      return new Result(
          size,
          blocks,
          clients,
          runs,
          maxNum,
          warmup,
          median(courierWall),
          median(baseWall),
          median(courierCpu),
          median(baseCpu),
          median(courierJit),
          median(baseJit),
          median(throughput),
          median(cpu));
    } finally {
      clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private interface Run {
    void go() throws Exception;
  }

  /**
   * Wall seconds, process CPU seconds and JIT compiler CPU seconds of one run, which writes the
   * files {@code prefix<block>} under {@code fetched}. Outside the measured window, the run's files
   * are then written back and deleted: a run neither truncates files left by the one before nor
   * starts while the kernel still holds a previous run's dirty pages, whose cost would be charged
   * to whichever path came next (both paths write the same bytes, so this cost is common to both).
   */
  private double[] measure(Run run, Path fetched, String prefix) throws Exception {
    System.gc();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    double jit0 = JitCpu.seconds();
    long t0 = System.nanoTime();
    run.go();
    double[] measured = {
      (System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9, JitCpu.seconds() - jit0
    };
    for (int b = 0; b < blocks; b++) {
      Path file = fetched.resolve(prefix + b);
      try (FileChannel written = FileChannel.open(file, StandardOpenOption.WRITE)) {
        written.force(true);
      }
      Files.delete(file);
    }
    return measured;
  }

  /** Every client fetches its share of the blocks (block i goes to client i mod clients). */
  private void courier(List<CourierClient> cs, CourierAgent sender, Path fetched, long[] bounds)
      throws Exception {
    List<CompletableFuture<Long>> all = new ArrayList<>();
    for (int c = 0; c < cs.size(); c++) {
      List<RemoteBlock> mine = new ArrayList<>();
      for (int b = c; b < blocks; b += cs.size()) {
        mine.add(
            RemoteBlock.newBuilder()
                .setHostId("bench-src")
                .setAgentAddress("127.0.0.1:" + sender.address().getPort())
                .setSize(bounds[b + 1] - bounds[b])
                .setBlock(
                    BlockRef.newBuilder()
                        .setBlockSet("spark/bench/src")
                        .setBlock("shuffle_0_0_" + b))
                .setTargetFile(fetched.resolve("courier-" + b).toString())
                .build());
      }
      all.addAll(cs.get(c).fetch("bench/0", mine, d -> {}, 4 << 20));
    }
    CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(10, TimeUnit.MINUTES);
  }

  /** The same blocks, each client fetching its share one after another on its own connection. */
  private void direct(
      NioEventLoopGroup group, DirectBaseline baseline, Path fetched, long[] bounds, long[] sums)
      throws Exception {
    List<DirectBaseline.Client> cs = new ArrayList<>();
    List<CompletableFuture<Long>> chains = new ArrayList<>();
    try {
      for (int c = 0; c < clients; c++) {
        DirectBaseline.Client client =
            DirectBaseline.connect(group, baseline.address()).get(30, TimeUnit.SECONDS);
        cs.add(client);
        CompletableFuture<Long> chain = CompletableFuture.completedFuture(0L);
        for (int b = c; b < blocks; b += clients) {
          int block = b;
          chain =
              chain.thenCompose(
                  x ->
                      client.fetch(
                          bounds[block],
                          bounds[block + 1] - bounds[block],
                          sums[block],
                          fetched.resolve("direct-" + block)));
        }
        chains.add(chain);
      }
      CompletableFuture.allOf(chains.toArray(new CompletableFuture[0])).get(10, TimeUnit.MINUTES);
    } finally {
      for (DirectBaseline.Client c : cs) {
        c.close();
      }
    }
  }

  /** One Spark map output of {@code blocks} equal partitions with its ADLER32 checksum file. */
  private Path writeMapOutput(Path served, long[] bounds, long[] sums) throws IOException {
    Path sub = Files.createDirectories(served.resolve("00"));
    Path data = sub.resolve("shuffle_0_0_0.data");
    SplittableRandom random = new SplittableRandom(17);
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    try (FileChannel out =
        FileChannel.open(
            data,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      for (int b = 0; b < blocks; b++) {
        bounds[b + 1] = size * (b + 1) / blocks;
        Adler32 sum = new Adler32();
        for (long left = bounds[b + 1] - bounds[b]; left > 0; ) {
          buf.clear();
          while (buf.remaining() >= 8) {
            buf.putLong(random.nextLong());
          }
          buf.flip().limit((int) Math.min(buf.limit(), left));
          sum.update(buf.duplicate());
          left -= buf.remaining();
          while (buf.hasRemaining()) {
            out.write(buf);
          }
        }
        sums[b] = sum.getValue();
      }
    }
    ByteBuffer index = ByteBuffer.allocate(8 * (blocks + 1));
    for (long v : bounds) {
      index.putLong(v);
    }
    Files.write(sub.resolve("shuffle_0_0_0.index"), index.array());
    ByteBuffer checks = ByteBuffer.allocate(8 * blocks);
    for (long s : sums) {
      checks.putLong(s);
    }
    Files.write(sub.resolve("shuffle_0_0_0.checksum.ADLER32"), checks.array());
    return data;
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
