package org.coflow.bench.sparktestbed;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;
import org.apache.spark.Partitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * {@code bin/coflow bench spark-testbed}'s trace workload as a Spark application: every coflow of
 * its share of a trace slice becomes one job, submitted at the coflow's arrival whether or not the
 * jobs before it ended (open loop), each in a fair-scheduler pool of its own. A job's map stage has
 * one task per mapper, each writing to every reducer exactly its share of the reducer's bytes (a
 * reducer's bytes split evenly over the mappers, as the trace's flows are); its reduce stage has
 * one task per reducer (an identity partitioner), which reads the bytes and sums their CRC32s.
 *
 * <pre>
 * spark-submit ... --class org.coflow.bench.sparktestbed.TraceJobsApp app.jar \
 *     JOBS_FILE OUT GO_FILE EXECUTORS
 * </pre>
 *
 * <p>JOBS_FILE has a line per coflow: {@code id arrival-ms mappers bytes-of-reducer-0,...}. The
 * application first waits for EXECUTORS executors and runs one small untimed shuffle on them (so
 * that no job pays for connecting), then says it is ready (the file {@code OUT.ready}) and waits
 * for GO_FILE, which holds the epoch millisecond START at which the workload's clock starts (the
 * launcher writes it once all the run's applications are ready), and submits each job at START +
 * arrival. Each job is job group {@code coflow-ID}. OUT gets a line per job: {@code job ID BYTES
 * SUBMIT_MS END_MS DIGEST} (epoch ms; the digest covers every reducer's record count, bytes and CRC
 * sum, so two runs agree only if every byte arrived), or {@code job ID BYTES FAILED message}.
 */
public final class TraceJobsApp {
  /** The most bytes in one shuffle record. */
  static final int RECORD_BYTES = 64 << 10;

  private TraceJobsApp() {}

  /** One coflow as a job. */
  record Job(int id, long arrivalMs, int mappers, long[] reducerBytes)
      implements java.io.Serializable {
    long bytes() {
      long sum = 0;
      for (long b : reducerBytes) {
        sum += b;
      }
      return sum;
    }

    /** The line of a jobs file. */
    String line() {
      StringBuilder sb = new StringBuilder();
      for (long b : reducerBytes) {
        sb.append(sb.length() == 0 ? "" : ",").append(b);
      }
      return id + " " + arrivalMs + " " + mappers + " " + sb;
    }

    static Job parse(String line) {
      String[] f = line.trim().split(" ");
      if (f.length != 4) {
        throw new IllegalArgumentException(
            "not a job line (id arrival mappers bytes,...): " + line);
      }
      String[] r = f[3].split(",");
      long[] bytes = new long[r.length];
      for (int i = 0; i < r.length; i++) {
        bytes[i] = Long.parseLong(r[i]);
      }
      return new Job(Integer.parseInt(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]), bytes);
    }
  }

  /** Sends key {@code r} to partition {@code r}. */
  static final class Identity extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int partitions;

    Identity(int partitions) {
      this.partitions = partitions;
    }

    @Override
    public int numPartitions() {
      return partitions;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Identity && ((Identity) o).partitions == partitions;
    }

    @Override
    public int hashCode() {
      return partitions;
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      throw new IllegalArgumentException("usage: TraceJobsApp JOBS_FILE OUT GO_FILE EXECUTORS");
    }
    List<Job> jobs = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      if (!line.isBlank()) {
        jobs.add(Job.parse(line));
      }
    }
    Path out = Path.of(args[1]);
    Path go = Path.of(args[2]);
    int executors = Integer.parseInt(args[3]);
    JavaSparkContext sc = new JavaSparkContext(new SparkConf());
    List<String> lines = Collections.synchronizedList(new ArrayList<>());
    try {
      awaitExecutors(sc, executors);
      sc.setJobGroup("warmup", "warm-up shuffle", false);
      run(sc, new Job(-1, 0, executors, evenly(2 * executors, 1 << 20)));
      Files.writeString(Path.of(out + ".ready"), "ready\n");
      long start = awaitGo(go);
      ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, jobs.size()));
      try {
        List<Future<?>> running = new ArrayList<>();
        for (Job j : jobs) {
          running.add(pool.submit(() -> lines.add(timed(sc, j, start))));
        }
        for (Future<?> f : running) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      Files.write(out, lines, StandardCharsets.UTF_8);
    } finally {
      sc.stop();
    }
  }

  /** The start the launcher writes into {@code go}, once it does (within 10 minutes). */
  private static long awaitGo(Path go) throws Exception {
    long deadline = System.nanoTime() + 600_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (Files.exists(go)) {
        String text = Files.readString(go).trim();
        if (text.endsWith(".")) {
          return Long.parseLong(text.substring(0, text.length() - 1));
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("no start in " + go + " within 10 minutes");
  }

  private static long[] evenly(int reducers, long bytes) {
    long[] b = new long[reducers];
    java.util.Arrays.fill(b, bytes);
    return b;
  }

  private static void awaitExecutors(JavaSparkContext sc, int executors)
      throws InterruptedException {
    long deadline = System.nanoTime() + 180_000_000_000L;
    // The driver's own block manager is in the list too.
    while (sc.sc().getExecutorMemoryStatus().size() < executors + 1) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "only "
                + (sc.sc().getExecutorMemoryStatus().size() - 1)
                + " of "
                + executors
                + " executors registered in 180 s");
      }
      Thread.sleep(100);
    }
  }

  /** Waits for the job's arrival, runs it and returns its result line. */
  private static String timed(JavaSparkContext sc, Job j, long start) throws InterruptedException {
    long wait = start + j.arrivalMs() - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait);
    }
    sc.setLocalProperty("spark.scheduler.pool", "coflow-" + j.id());
    sc.setJobGroup("coflow-" + j.id(), "coflow " + j.id(), false);
    long submit = System.currentTimeMillis();
    try {
      String digest = run(sc, j);
      return "job "
          + j.id()
          + " "
          + j.bytes()
          + " "
          + submit
          + " "
          + System.currentTimeMillis()
          + " "
          + digest;
    } catch (RuntimeException e) {
      String m = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
      return "job "
          + j.id()
          + " "
          + j.bytes()
          + " FAILED "
          + (m.length() > 300 ? m.substring(0, 300) : m);
    }
  }

  /** Runs the job's shuffle and returns the digest of what its reducers read. */
  static String run(JavaSparkContext sc, Job j) {
    int mappers = j.mappers();
    long[] reducerBytes = j.reducerBytes();
    int id = j.id();
    List<Integer> maps = new ArrayList<>();
    for (int m = 0; m < mappers; m++) {
      maps.add(m);
    }
    List<String> parts =
        sc.parallelize(maps, mappers)
            .flatMapToPair(m -> records(id, m, mappers, reducerBytes))
            .partitionBy(new Identity(reducerBytes.length))
            .mapPartitionsWithIndex(
                (r, it) -> {
                  long n = 0;
                  long bytes = 0;
                  long crcs = 0;
                  CRC32 crc = new CRC32();
                  while (it.hasNext()) {
                    byte[] v = it.next()._2();
                    crc.reset();
                    crc.update(v, 0, v.length);
                    crcs += crc.getValue();
                    bytes += v.length;
                    n++;
                  }
                  return Collections.singletonList(r + ":" + n + ":" + bytes + ":" + crcs)
                      .iterator();
                },
                false)
            .collect();
    List<String> sorted = new ArrayList<>(parts);
    Collections.sort(sorted);
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (String p : sorted) {
        md.update(p.getBytes(StandardCharsets.UTF_8));
        md.update((byte) '\n');
      }
      return HexFormat.of().formatHex(md.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Mapper {@code m}'s records: to each reducer its share of the reducer's bytes, in records of at
   * most {@link #RECORD_BYTES}. A (job, mapper, reducer) triple fixes one random block; each record
   * is that block with its own number in its first bytes, so that records differ (a lost or
   * repeated one changes the digest) while the map tasks spend their time writing, not drawing
   * random numbers.
   */
  static Iterator<Tuple2<Integer, byte[]>> records(
      int id, int m, int mappers, long[] reducerBytes) {
    return new Iterator<>() {
      private int r = -1;
      private long left;
      private long n;
      private byte[] block;

      @Override
      public boolean hasNext() {
        while (left == 0 && r + 1 < reducerBytes.length) {
          r++;
          left = reducerBytes[r] / mappers + (m < reducerBytes[r] % mappers ? 1 : 0);
          block = new byte[(int) Math.min(RECORD_BYTES, left)];
          new Random(((long) id << 40) ^ ((long) m << 20) ^ r).nextBytes(block);
          n = 0;
        }
        return left > 0;
      }

      @Override
      public Tuple2<Integer, byte[]> next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        byte[] v = java.util.Arrays.copyOf(block, (int) Math.min(block.length, left));
        long k = n++;
        for (int i = 0; i < Math.min(8, v.length); i++) {
          v[i] ^= (byte) (k >>> (8 * i));
        }
        left -= v.length;
        return new Tuple2<>(r, v);
      }
    };
  }
}
