package org.coflow.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The coda-agent on unmodified MapReduce: a two-NodeManager MiniMRYarnCluster whose reducers fetch
 * with Hadoop's own shuffle (the stock {@code Shuffle} and its HTTP fetch, served by the
 * NodeManagers' {@code mapreduce_shuffle}), the agent attached at run time to this JVM (where the
 * NodeManagers, and so the shuffle's senders, run) and loaded with {@code -javaagent} by every task
 * JVM. A master in a JVM of its own ({@link LabelledMaster}) identifies the shuffles of three
 * concurrent jobs in the dark and is scored against the labels the agent read from the reducers'
 * {@code GET /mapOutput?job=...} requests. Then the faults: task JVMs given an unreachable master,
 * or a malformed agent argument, and the master killed mid-job; every job's output must stay
 * exactly what the job computes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CodaAgentMapReduceTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
  private static final String BUILT_JAR = System.getProperty("coda.agent.jar");

  /** Each map: this many records of a key among {@link #KEYS} and a value of {@link #VALUE}. */
  static final int RECORDS = 60_000;

  static final int KEYS = 500;
  static final int VALUE = 100;
  private static final int MAPS = 4;

  /**
   * One reducer: its fetches from both NodeManagers start within milliseconds of each other. Two
   * reducers of a job start up to seconds apart on two busy cores (launched together, their JVMs
   * come up 0.6 to 2.2 s apart here), farther than CODA's radius reaches (about 0.45 s between
   * flows whose source port is not the Hadoop port, as neither NodeManager's is here:
   * MiniMRYarnCluster gives each an ephemeral one).
   */
  private static final int REDUCERS = 1;

  private static MasterJvm master;
  private static CourierMiniCluster cluster;
  private static Path work;
  private static String taskOpts;

  /** This run's copy of the agent jar: a rebuild of the module meanwhile must not reach it. */
  private static String jar;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("coda-agent-mr");
    jar = snapshot(work.resolve("coda-agent.jar")).toString();
    master = MasterJvm.start(work.resolve("arrivals.txt"), work.resolve("master.log"));
    attach(agentArgs(master.port));
    // The harness's cluster without a master: its NodeManagers' Courier agents stay idle, and
    // reducers use Hadoop's own shuffle (set per job below). The shuffle handler keeps its
    // connections open (HTTP keep-alive, a stock option): without it each fetch's connection closes
    // the moment its last byte is written, on loopback within a few tens of milliseconds, and the
    // agent prunes a flow that ended before its first report (one every 100 ms).
    cluster =
        CourierMiniCluster.start(
            "coda-agent-mr",
            2,
            null,
            null,
            Map.of(
                "mapreduce.shuffle.connection-keep-alive.enable",
                "true",
                // Containers are handed out on NodeManager heartbeats: four a second, not one, and
                // one per heartbeat, so that a job's maps run on both NodeManagers (its reducer
                // then fetches from both).
                "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms",
                "250",
                "yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled",
                "false"));
    taskOpts = cluster.config().get("mapreduce.map.java.opts");
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      if (master != null) {
        master.close();
      }
      if (jar != null) {
        Files.deleteIfExists(Path.of(jar));
      }
    }
  }

  /** Copies the built agent jar to {@code to}, once it is whole (the build may be rewriting it). */
  private static Path snapshot(Path to) throws Exception {
    assertTrue(
        BUILT_JAR != null && Files.isRegularFile(Path.of(BUILT_JAR)),
        "no coda-agent jar at "
            + BUILT_JAR
            + ": build it (mvn -pl coda-agent/bootstrap,coda-agent/agent install)");
    long deadline = System.currentTimeMillis() + 120_000;
    while (true) {
      Files.copy(Path.of(BUILT_JAR), to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      try (java.util.jar.JarFile j = new java.util.jar.JarFile(to.toFile())) {
        if (j.getManifest() != null
            && "org.coflow.coda.CodaAgent"
                .equals(j.getManifest().getMainAttributes().getValue("Premain-Class"))
            && j.getEntry("META-INF/coda/bootstrap.jar") != null) {
          return to;
        }
      } catch (IOException e) {
        // half written: try again
      }
      assertTrue(System.currentTimeMillis() < deadline, BUILT_JAR + " stays incomplete");
      Thread.sleep(2000);
    }
  }

  private static String agentArgs(int masterPort) {
    return "master=127.0.0.1:" + masterPort + ",hostId=mr-host,minFlowBytes=100k";
  }

  /**
   * Attaches the agent to this JVM (its NodeManagers' shuffle handlers) and waits for its session
   * at the master.
   */
  private static void attach(String args) throws Exception {
    String pid = Long.toString(ProcessHandle.current().pid());
    ByteBuddyAgent.attach(new File(jar), pid, args);
    long deadline = System.currentTimeMillis() + 20_000;
    while (!List.of(master.ask("sessions").substring("sessions ".length()).split(","))
        .contains(pid)) {
      assertTrue(
          System.currentTimeMillis() < deadline,
          "the agent attached to this JVM opened no session; master log:\n" + master.log());
      Thread.sleep(50);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The job: maps generate records from a seed (their input line), reducers digest each key's
  // values. The expected output is computed here from the same generator.

  /** The value bytes of the next record. */
  static void fill(Random r, byte[] value) {
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) ('a' + r.nextInt(26));
    }
  }

  /** Emits {@link #RECORDS} records generated from the seed on each input line. */
  public static final class Generate extends Mapper<LongWritable, Text, Text, Text> {
    @Override
    protected void map(LongWritable k, Text v, Context ctx)
        throws IOException, InterruptedException {
      Random r = new Random(Long.parseLong(v.toString().trim()));
      byte[] value = new byte[VALUE];
      Text key = new Text();
      Text val = new Text();
      for (int i = 0; i < RECORDS; i++) {
        key.set("k" + r.nextInt(KEYS));
        fill(r, value);
        val.set(value);
        ctx.write(key, val);
      }
    }
  }

  /** Per key: how many values, and the sum of their CRC-32s. */
  public static final class Digest extends Reducer<Text, Text, Text, Text> {
    private final CRC32 crc = new CRC32();
    private final Text out = new Text();

    @Override
    protected void reduce(Text k, Iterable<Text> vs, Context ctx)
        throws IOException, InterruptedException {
      long n = 0;
      long sum = 0;
      for (Text v : vs) {
        crc.reset();
        crc.update(v.getBytes(), 0, v.getLength());
        sum += crc.getValue();
        n++;
      }
      out.set(n + "\t" + sum);
      ctx.write(k, out);
    }
  }

  /** The seeds in job {@code index}'s input (one per file, so one per map). */
  private static List<Long> seeds(int index) throws IOException {
    List<Long> s = new ArrayList<>();
    try (Stream<Path> files = Files.list(work.resolve("in-" + index))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        s.add(Long.parseLong(Files.readString(f).trim()));
      }
    }
    return s;
  }

  /** What {@link Digest} writes for job {@code index}'s input: key → "count\tsum". */
  private static Map<String, String> expected(int index) throws IOException {
    Map<String, long[]> acc = new HashMap<>();
    CRC32 crc = new CRC32();
    byte[] value = new byte[VALUE];
    for (long seed : seeds(index)) {
      Random r = new Random(seed);
      for (int i = 0; i < RECORDS; i++) {
        String key = "k" + r.nextInt(KEYS);
        fill(r, value);
        crc.reset();
        crc.update(value);
        long[] a = acc.computeIfAbsent(key, x -> new long[2]);
        a[0]++;
        a[1] += crc.getValue();
      }
    }
    Map<String, String> out = new TreeMap<>();
    acc.forEach((k, a) -> out.put(k, a[0] + "\t" + a[1]));
    return out;
  }

  /** The job's output, key → value, every key once. */
  private static Map<String, String> output(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (!f.getFileName().toString().startsWith("part-")) {
          continue;
        }
        for (String line : Files.readAllLines(f)) {
          int tab = line.indexOf('\t');
          assertEquals(
              null, out.put(line.substring(0, tab), line.substring(tab + 1)), "key twice: " + line);
        }
      }
    }
    return out;
  }

  /**
   * Job {@code index} of {@code maps} maps with the agent argument {@code agent} in its task JVMs.
   * With {@code together}, its reducer starts once every map is done, so that its fetches start
   * together.
   */
  private static Job job(String name, int index, int maps, boolean together, String agent)
      throws IOException {
    Path in = work.resolve("in-" + index);
    Files.createDirectories(in);
    for (int m = 0; m < maps; m++) {
      Files.writeString(in.resolve("seed-" + m + ".txt"), (1000L * index + m) + "\n");
    }
    Configuration conf = cluster.config();
    conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, CourierMiniCluster.STOCK_PLUGIN);
    if (together) {
      conf.setFloat("mapreduce.job.reduce.slowstart.completedmaps", 1.0f);
    }
    // The ApplicationMaster asks for containers every 200 ms rather than every second; no
    // speculative attempts (each task JVM's log is checked).
    conf.setInt("yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms", 200);
    conf.setBoolean("mapreduce.map.speculative", false);
    conf.setBoolean("mapreduce.reduce.speculative", false);
    String opts = taskOpts + " -javaagent:" + jar + "=" + agent;
    conf.set("mapreduce.map.java.opts", opts);
    conf.set("mapreduce.reduce.java.opts", opts);
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(CodaAgentMapReduceTest.class);
    job.setMapperClass(Generate.class);
    job.setReducerClass(Digest.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(Text.class);
    job.setNumReduceTasks(REDUCERS);
    FileInputFormat.addInputPath(job, new org.apache.hadoop.fs.Path(in.toUri()));
    FileOutputFormat.setOutputPath(
        job, new org.apache.hadoop.fs.Path(work.resolve("out-" + index).toUri()));
    return job;
  }

  /** Waits for the job; fails with its diagnostics; checks its output. */
  private static void finish(Job job, int index) throws Exception {
    assertTrue(
        job.waitForCompletion(false),
        job.getJobName() + " failed: " + job.getStatus().getFailureInfo());
    assertEquals(
        expected(index),
        output(work.resolve("out-" + index)),
        job.getJobName() + ": output differs from what the job computes");
  }

  /**
   * The task containers' standard error of a job (every container but the first, its
   * ApplicationMaster's), by container, from the NodeManagers' log dirs.
   */
  private static Map<String, String> taskStderr(Job job) throws IOException {
    String app = job.getJobID().toString().replace("job_", "application_");
    Map<String, String> out = new TreeMap<>();
    // MiniYARNCluster's directory: test.build.data (target/test/data), then the cluster's name.
    Path logs = Path.of(System.getProperty("test.build.data", "target/test/data"), "coda-agent-mr");
    // The NodeManagers delete finished applications' local dirs (appcache) under the same tree
    // while this walks it: a directory that vanished on the way is skipped, not an error.
    Files.walkFileTree(
        logs,
        new java.nio.file.SimpleFileVisitor<Path>() {
          @Override
          public java.nio.file.FileVisitResult visitFile(
              Path p, java.nio.file.attribute.BasicFileAttributes attrs) throws IOException {
            if (p.getFileName().toString().equals("stderr")
                && p.getParent().getParent().getFileName().toString().equals(app)) {
              String container = p.getParent().getFileName().toString();
              if (!container.endsWith("_000001")) {
                out.put(container, Files.readString(p));
              }
            }
            return java.nio.file.FileVisitResult.CONTINUE;
          }

          @Override
          public java.nio.file.FileVisitResult visitFileFailed(Path p, IOException e)
              throws IOException {
            if (e instanceof java.nio.file.NoSuchFileException) {
              return java.nio.file.FileVisitResult.CONTINUE;
            }
            throw e;
          }

          @Override
          public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e)
              throws IOException {
            if (e != null && !(e instanceof java.nio.file.NoSuchFileException)) {
              throw e;
            }
            return java.nio.file.FileVisitResult.CONTINUE;
          }
        });
    assertFalse(out.isEmpty(), "no task container logs of " + app);
    return out;
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  @Order(1)
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theMasterIdentifiesTheShufflesOfConcurrentJobs() throws Exception {
    String args = agentArgs(master.port);
    int jobs = 3;
    ExecutorService pool = Executors.newFixedThreadPool(jobs);
    Map<String, Integer> ids = new LinkedHashMap<>();
    Map<String, Long> shuffled = new TreeMap<>();
    long t0 = System.currentTimeMillis();
    try {
      // Each job is submitted from its own thread, at least a few seconds after the previous one
      // and once that one's maps are done: they run at the same time (a job's shuffle and reduce
      // with the next one's ApplicationMaster and maps), and their shuffles start seconds apart on
      // two cores however slowly the JVMs come up.
      List<Future<Job>> running = new ArrayList<>();
      List<CompletableFuture<Void>> mapped = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        mapped.add(new CompletableFuture<>());
      }
      for (int i = 0; i < jobs; i++) {
        int index = i + 1;
        CompletableFuture<Void> after =
            i == 0 ? CompletableFuture.completedFuture(null) : mapped.get(i - 1);
        CompletableFuture<Void> mine = mapped.get(i);
        running.add(
            pool.submit(
                () -> {
                  Thread.sleep(3000L * (index - 1));
                  after.get(3, TimeUnit.MINUTES);
                  Job j = job("coda-mr-" + index, index, MAPS, true, args);
                  j.submit();
                  try {
                    while (j.mapProgress() < 1f && !j.isComplete()) {
                      Thread.sleep(100);
                    }
                  } finally {
                    mine.complete(null);
                  }
                  finish(j, index);
                  return j;
                }));
      }
      for (int i = 0; i < jobs; i++) {
        Job j = running.get(i).get();
        ids.put("mr:" + j.getJobID(), i + 1);
        shuffled.put(
            "mr:" + j.getJobID(),
            j.getCounters()
                .findCounter(org.apache.hadoop.mapreduce.TaskCounter.REDUCE_SHUFFLE_BYTES)
                .getValue());
      }
    } finally {
      pool.shutdownNow();
    }
    long jobsMillis = System.currentTimeMillis() - t0;
    Thread.sleep(1500); // the last flows' idle gap, and one more report
    Score s = master.score();
    System.out.printf(
        "coda-agent on MapReduce: %d flows, precision %.3f, recall %.3f (flows per job %s; %d jobs"
            + " in %.1f s)%n",
        s.flows, s.precision, s.recall, s.perLabel, jobs, jobsMillis / 1e3);
    // Sampled from the master's model while the flows were in it: a lower bound (a flow's last
    // report can come with its end, and the flow then leaves the model at once).
    Map<String, Long> seen = master.bytes();
    System.out.printf(
        "bytes per job: the master's model showed at least %s; the reducers fetched %s%n",
        seen, shuffled);
    String arrivals = master.arrivals();
    System.out.println(arrivals);
    assertTrue(
        ids.keySet().containsAll(s.perLabel.keySet()),
        "labels naming none of the jobs " + ids.keySet() + ": " + s.perLabel);
    // Every labelled flow is a shuffle handler's: sent from a NodeManager's shuffle port.
    Set<String> shufflePorts =
        cluster.handlers().stream()
            .map(h -> h.getConfig().get("mapreduce.shuffle.port"))
            .collect(Collectors.toSet());
    for (String line : arrivals.split("\n")) {
      if (line.contains(" label=mr:")) {
        String port = line.replaceAll(".* src_port=(\\S+) .*", "$1");
        assertTrue(shufflePorts.contains(port), shufflePorts + " has no port of " + line);
      }
    }
    for (String label : ids.keySet()) {
      assertTrue(
          s.perLabel.getOrDefault(label, 0) > 0,
          "no labelled flow of " + label + " was identified: " + s.perLabel);
    }
    assertTrue(s.precision >= 0.9, "precision " + s.precision);
    assertTrue(s.recall >= 0.9, "recall " + s.recall);
  }

  /**
   * Three jobs at once: one whose task JVMs are given a master nothing listens on, one whose task
   * JVMs get a malformed agent argument, and one under which the master is killed once its maps run
   * (the agents of this JVM and of its tasks then lose their sessions).
   */
  @Test
  @Order(2)
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void jobsSucceedWithoutAMasterOrWithAMalformedArgument() throws Exception {
    long t0 = System.currentTimeMillis();
    int unused;
    try (ServerSocket s = new ServerSocket(0)) {
      unused = s.getLocalPort();
    }
    Job unreachable = job("coda-mr-unreachable", 11, 2, false, agentArgs(unused));
    Job malformed = job("coda-mr-malformed", 12, 2, false, "bogus");
    Job killed = job("coda-mr-master-killed", 13, 2, false, agentArgs(master.port));
    unreachable.submit();
    malformed.submit();
    killed.submit();
    long deadline = System.currentTimeMillis() + TimeUnit.MINUTES.toMillis(3);
    while (killed.mapProgress() <= 0f
        && !killed.isComplete()
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
    }
    assertFalse(killed.isComplete(), "the job ended before the master could be killed");
    master.kill();
    finish(unreachable, 11);
    finish(malformed, 12);
    finish(killed, 13);

    Map<String, String> bad = taskStderr(malformed);
    bad.forEach(
        (c, text) ->
            assertTrue(
                text.contains("[coda-agent] not started: malformed agent argument"),
                c + " stderr:\n" + text));
    Map<String, String> away = taskStderr(unreachable);
    away.forEach(
        (c, text) -> {
          assertTrue(text.contains("[coda-agent] started:"), c + " stderr:\n" + text);
          assertTrue(text.contains("[coda-agent] master unreachable"), c + " stderr:\n" + text);
        });
    Map<String, String> orphans = taskStderr(killed);
    long lost =
        orphans.values().stream()
            .filter(t -> t.contains("[coda-agent] master unreachable"))
            .count();
    System.out.printf(
        "coda-agent faults: %d task JVMs with an unreachable master, %d with a malformed argument,"
            + " %d of %d told the master went away (%.1f s)%n",
        away.size(), bad.size(), lost, orphans.size(), (System.currentTimeMillis() - t0) / 1e3);
  }

  // ---------------------------------------------------------------------------------------------

  /** What {@link LabelledMaster} answers to {@code score}. */
  private record Score(int flows, double precision, double recall, Map<String, Integer> perLabel) {}

  /**
   * {@link LabelledMaster} in a JVM of its own, on cli's build output (the master and its
   * libraries) and the simulator's jar (LabelScore): the master's gRPC and coflow-api classes must
   * not meet the shaded copies of courier-dist, which this JVM's NodeManagers load.
   */
  private static final class MasterJvm implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final Writer in;
    private final Path arrivals;
    private final Path log;
    final int port;

    private MasterJvm(Process process, Path arrivals, Path log) throws IOException {
      this.process = process;
      this.arrivals = arrivals;
      this.log = log;
      this.out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      String first = out.readLine();
      if (first == null || !first.startsWith("port ")) {
        process.destroyForcibly();
        throw new IOException("the master did not start: " + first + "\n" + log());
      }
      this.port = Integer.parseInt(first.substring("port ".length()).trim());
    }

    static MasterJvm start(Path arrivals, Path log) throws Exception {
      Path cli = ROOT.resolve("cli/target");
      List<String> cp = new ArrayList<>();
      cp.add(
          Path.of(
                  CodaAgentMapReduceTest.class
                      .getProtectionDomain()
                      .getCodeSource()
                      .getLocation()
                      .toURI())
              .toString());
      cp.add(builtJar(ROOT.resolve("sim/target"), "coflow-sim"));
      if (!Files.isDirectory(cli.resolve("lib"))) {
        throw new IOException(
            "no built cli in " + cli + ": build it first (mvn -pl cli -am install)");
      }
      cp.add(builtJar(cli, "coflow-cli"));
      cp.add(cli.resolve("lib") + File.separator + "*");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process p =
          new ProcessBuilder(
                  java,
                  "-Xmx512m",
                  "-cp",
                  String.join(File.pathSeparator, cp),
                  "org.coflow.mr.LabelledMaster",
                  arrivals.toString())
              .redirectError(log.toFile())
              .start();
      return new MasterJvm(p, arrivals, log);
    }

    /** The module's main jar in its target directory, or an error saying how to build it. */
    private static String builtJar(Path target, String artifact) throws IOException {
      try (Stream<Path> s = Files.list(target)) {
        return s.filter(
                f -> f.getFileName().toString().matches(artifact + "-[^-]+(-SNAPSHOT)?\\.jar"))
            .map(Path::toString)
            .findFirst()
            .orElseThrow(
                () ->
                    new IOException(
                        "no "
                            + artifact
                            + " jar in "
                            + target
                            + ": build it first (mvn -am install)"));
      } catch (java.nio.file.NoSuchFileException e) {
        throw new IOException("no " + target + ": build it first (mvn -am install)", e);
      }
    }

    synchronized String ask(String command) throws IOException {
      in.write(command + "\n");
      in.flush();
      String answer = out.readLine();
      if (answer == null) {
        throw new IOException("the master exited; its log:\n" + log());
      }
      return answer;
    }

    Score score() throws IOException {
      String[] f = ask("score").split(" ", 5);
      Map<String, Integer> perLabel = new TreeMap<>();
      if (f.length > 4 && !f[4].isBlank()) {
        for (String kv : f[4].split(";")) {
          int eq = kv.lastIndexOf('=');
          perLabel.put(kv.substring(0, eq), Integer.parseInt(kv.substring(eq + 1)));
        }
      }
      return new Score(
          Integer.parseInt(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3]), perLabel);
    }

    Map<String, Long> bytes() throws IOException {
      Map<String, Long> out = new TreeMap<>();
      String[] f = ask("bytes").split(" ", 2);
      if (f.length > 1 && !f[1].isBlank()) {
        for (String kv : f[1].split(";")) {
          int eq = kv.lastIndexOf('=');
          out.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
      }
      return out;
    }

    void kill() throws IOException {
      assertEquals("killed", ask("kill"));
    }

    String arrivals() throws IOException {
      return Files.readAllLines(arrivals).stream().collect(Collectors.joining("\n"));
    }

    String log() {
      try {
        return Files.readString(log);
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }

    @Override
    public void close() throws InterruptedException {
      try {
        in.close();
      } catch (IOException e) {
        // it is going anyway
      }
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
