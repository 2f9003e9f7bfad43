package org.coflow.mr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.task.reduce.CourierShuffle;
import org.coflow.courier.mapreduce.CourierShuffleHandler;
import org.coflow.mr.jobs.TextJobs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drop-in jar on a real two-NodeManager MiniMRYarnCluster: word count with a combiner, a sort
 * with three reducers, compressed map output, and a job whose maps partly emit nothing, all four
 * running at once through the agents; then the same four with Hadoop's own shuffle. Outputs must be
 * byte-identical, every map output must have come through the agents (job counters), and bytes must
 * have crossed between the two NodeManagers' agents.
 */
class MapReduceDifferentialTest {
  static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
  private static MasterProcess master;
  private static CourierMiniCluster cluster;
  private static Path work;

  @BeforeAll
  static void startCluster() throws Exception {
    master = MasterProcess.start(ROOT, "aalo");
    work = Files.createTempDirectory("courier-mr-diff");
    // The NodeManagers' agents prove a cluster secret to each other (reducers prove their job's
    // token); MaxNum too through the YARN configuration, as an operator's yarn-site.xml sets them.
    Path secret = work.resolve("cluster.secret");
    Files.writeString(secret, "a cluster secret for the MapReduce differential test");
    Files.setPosixFilePermissions(
        secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    cluster =
        CourierMiniCluster.start(
            "courier-diff",
            2,
            master.address(),
            null,
            Map.of(
                "mapreduce.shuffle.courier.maxNum",
                "2",
                "mapreduce.shuffle.courier.secretFile",
                secret.toString()));
    writeText(work.resolve("in"), 4, 30_000, 7);
    Path filter = work.resolve("filter");
    writeText(filter, 3, 20_000, 11);
    // One more input whose lines never hold the marker: its map emits nothing.
    try (Writer w = Files.newBufferedWriter(filter.resolve("part-empty.txt"))) {
      for (int i = 0; i < 5000; i++) {
        w.write("nothing to see here " + i + "\n");
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (master != null) {
      master.close();
    }
  }

  /** {@code files} files of {@code lines} lines of words drawn with a skew, reproducibly. */
  static void writeText(Path dir, int files, int lines, long seed) throws IOException {
    Files.createDirectories(dir);
    Random r = new Random(seed);
    for (int f = 0; f < files; f++) {
      try (Writer w = Files.newBufferedWriter(dir.resolve("part-" + f + ".txt"))) {
        for (int l = 0; l < lines; l++) {
          int words = 3 + r.nextInt(8);
          StringBuilder sb = new StringBuilder();
          for (int i = 0; i < words; i++) {
            int k = (int) Math.abs(r.nextGaussian() * 2000);
            sb.append(i == 0 ? "" : " ")
                .append(i == 0 && r.nextInt(4) == 0 ? "MARK" : "w")
                .append(k);
          }
          w.write(sb.append('\n').toString());
        }
      }
    }
  }

  private static Map<String, Job> jobs(String way) throws IOException {
    Configuration conf = cluster.config();
    conf.set(
        MRConfig.SHUFFLE_CONSUMER_PLUGIN,
        way.equals("courier") ? CourierMiniCluster.PLUGIN : CourierMiniCluster.STOCK_PLUGIN);
    org.apache.hadoop.fs.Path in = new org.apache.hadoop.fs.Path(work.resolve("in").toUri());
    org.apache.hadoop.fs.Path filter =
        new org.apache.hadoop.fs.Path(work.resolve("filter").toUri());
    Map<String, Job> jobs = new LinkedHashMap<>();
    jobs.put(
        "wordcount-combiner", TextJobs.wordCount(conf, way + "-wc", in, out(way, "wc"), 2, true));
    jobs.put(
        "sort-3-reducers", TextJobs.sortLines(conf, way + "-sort", in, out(way, "sort"), 3, ""));
    Job compressed =
        TextJobs.wordCount(conf, way + "-wc-compressed", in, out(way, "wcz"), 2, false);
    compressed.getConfiguration().setBoolean("mapreduce.map.output.compress", true);
    compressed
        .getConfiguration()
        .setClass(
            "mapreduce.map.output.compress.codec",
            DefaultCodec.class,
            org.apache.hadoop.io.compress.CompressionCodec.class);
    jobs.put("compressed-map-output", compressed);
    jobs.put(
        "maps-emitting-nothing",
        TextJobs.sortLines(conf, way + "-filter", filter, out(way, "filter"), 2, "MARK"));
    return jobs;
  }

  private static org.apache.hadoop.fs.Path out(String way, String job) {
    return new org.apache.hadoop.fs.Path(work.resolve("out-" + way + "-" + job).toUri());
  }

  /** Submits all jobs at once and waits for each; fails with the job's diagnostics. */
  static void runAll(Map<String, Job> jobs) throws Exception {
    for (Job j : jobs.values()) {
      j.submit();
    }
    for (Map.Entry<String, Job> e : jobs.entrySet()) {
      Job j = e.getValue();
      assertTrue(
          j.waitForCompletion(false), e.getKey() + " failed: " + j.getStatus().getFailureInfo());
    }
  }

  /** The job's output: its part files in order, concatenated. */
  static byte[] output(Path dir) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    List<Path> parts = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().forEach(parts::add);
    }
    assertTrue(!parts.isEmpty(), "no part files in " + dir);
    for (Path p : parts) {
      all.write(Files.readAllBytes(p));
    }
    return all.toByteArray();
  }

  static long agentBytes() {
    long sum = 0;
    for (CourierShuffleHandler h : cluster.handlers()) {
      if (h.agent() != null) {
        sum += h.agent().bytesFetchedFromPeers();
      }
    }
    return sum;
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void jobsThroughTheAgentsEqualTheStockShuffle() throws Exception {
    assertEquals(2, cluster.handlers().size(), "both NodeManagers run their agent");
    long before = agentBytes();
    Map<String, Job> courier = jobs("courier");
    runAll(courier);
    long crossed = agentBytes() - before;
    Map<String, Job> stock = jobs("stock");
    runAll(stock);
    long total = 0;
    for (String name : courier.keySet()) {
      Counters c = courier.get(name).getCounters();
      long viaAgent =
          c.findCounter(CourierShuffle.COUNTERS, CourierShuffle.MAPS_VIA_AGENT).getValue();
      long viaStock =
          c.findCounter(CourierShuffle.COUNTERS, CourierShuffle.MAPS_VIA_STOCK).getValue();
      long maps = c.findCounter(org.apache.hadoop.mapreduce.TaskCounter.SHUFFLED_MAPS).getValue();
      assertEquals(
          maps, viaAgent, name + ": every map output through the agents (stock: " + viaStock + ")");
      assertEquals(0, viaStock, name);
      total += c.findCounter(CourierShuffle.COUNTERS, CourierShuffle.BYTES_VIA_AGENT).getValue();
      long stockMaps =
          stock
              .get(name)
              .getCounters()
              .findCounter(CourierShuffle.COUNTERS, CourierShuffle.MAPS_VIA_AGENT)
              .getValue();
      assertEquals(0, stockMaps, name + ": the stock run must not touch the agents");
    }
    String[] dirs = {"wc", "sort", "wcz", "filter"};
    String[] names = courier.keySet().toArray(new String[0]);
    for (int i = 0; i < dirs.length; i++) {
      byte[] ours = output(work.resolve("out-courier-" + dirs[i]));
      byte[] theirs = output(work.resolve("out-stock-" + dirs[i]));
      assertTrue(theirs.length > 0, names[i]);
      assertArrayEquals(theirs, ours, names[i] + ": output differs from the stock shuffle's");
    }
    assertTrue(
        crossed > 0 && total > 0, "agent-to-agent bytes " + crossed + ", reducer bytes " + total);
    for (CourierShuffleHandler h : cluster.handlers()) {
      assertTrue(
          !h.agent().keys().isOpen() && h.agent().credentials().present(),
          h.hostId() + ": the agent admits only holders of the cluster secret or a job's token");
      assertEquals(
          2, h.agent().connectionBudget(), h.hostId() + ": MaxNum from the YARN configuration");
      assertTrue(
          h.agent().maxDataConnections() <= 2,
          h.hostId() + " held " + h.agent().maxDataConnections() + " data connections");
    }
    System.out.printf(
        "courier MR: %d bytes through the agents, %d agent-to-agent%n", total, crossed);
  }
}
