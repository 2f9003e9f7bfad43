package org.coflow.bench.tpcds;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/coflow bench tpcds}'s Spark application, run by a real {@code spark-submit} with the
 * Courier shuffle manager installed.
 *
 * <pre>
 * spark-submit ... --class org.coflow.bench.tpcds.TpcdsBenchApp coflow-bench.jar \
 *     single|streams DATA_DIR QUERY_DIR OUT STREAMS Q1,Q2,... [GAP_SECONDS]
 * </pre>
 *
 * <p>{@code single}: one stream; after an untimed run with each reader, every query runs twice with
 * Spark's own fetch and twice through the Courier agents (job-local {@code
 * spark.shuffle.courier.enabled}) in the order A B B A ({@link #order}), A alternating between
 * queries, so a drift of the JVMs over the runs weighs on both readers alike. {@code streams}:
 * STREAMS threads, each in its own fair scheduler pool, run the query list (each from a different
 * starting point) at once, all through the agents; with GAP_SECONDS above 0 they run open loop
 * instead: each stream submits its next query every GAP_SECONDS whether or not its last one ended
 * (the streams' submissions interleaved evenly), each query in a fair scheduler pool of its own,
 * and a query's time counts from its submission. Writes one tab-separated line per query run to
 * OUT: {@code single q way seconds rows digest} or {@code stream s q seconds rows digest}, then
 * {@code wall seconds}; a single run's way is the reader and its round ({@code stock.1}) or an
 * untimed run ({@code warmup.1}). In {@code single}, each run is the job group {@link #jobGroup},
 * and a run that fails is the line {@code single q way FAILED message} (its stack trace in the
 * driver's log); the stream goes on with the next run.
 */
public final class TpcdsBenchApp {
  private static final Logger LOG = LoggerFactory.getLogger(TpcdsBenchApp.class);
  private static final String COURIER = "spark.shuffle.courier.enabled";

  private TpcdsBenchApp() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 6
        || args.length > 7
        || !(args[0].equals("single") || args[0].equals("streams"))) {
      throw new IllegalArgumentException(
          "usage: TpcdsBenchApp single|streams DATA_DIR QUERY_DIR OUT STREAMS Q1,Q2,... [GAP_SECONDS]");
    }
    double gap = args.length == 7 ? Double.parseDouble(args[6]) : 0;
    Path data = Path.of(args[1]);
    Path queryDir = Path.of(args[2]);
    Path out = Path.of(args[3]);
    int streams = Integer.parseInt(args[4]);
    List<String> names = List.of(args[5].split(","));
    List<String> sql = new ArrayList<>();
    for (String q : names) {
      sql.add(Files.readString(queryDir.resolve(q + ".sql")));
    }
    SparkSession spark = SparkSession.builder().getOrCreate();
    List<String> lines = Collections.synchronizedList(new ArrayList<>());
    try {
      TpcdsTables.register(spark, data);
      long start = System.nanoTime();
      if (args[0].equals("single")) {
        single(spark, names, sql, lines);
      } else if (gap > 0) {
        openLoop(spark, names, sql, streams, gap, lines);
      } else {
        streams(spark, names, sql, streams, lines);
      }
      lines.add("wall\t" + seconds(start));
      Files.write(out, lines, StandardCharsets.UTF_8);
    } finally {
      spark.stop();
    }
  }

  private static void single(
      SparkSession spark, List<String> names, List<String> sql, List<String> lines) {
    for (int i = 0; i < names.size(); i++) {
      // Untimed runs first, one with each reader, so no timed run pays for the query's planning
      // and code generation (Spark caches the compiled code) or the JIT's first look at its
      // operators and at each reader's path.
      List<String> order = order(i);
      List<String> warm = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        boolean courier = order.get(w).startsWith("courier");
        warm.add(singleRun(spark, names.get(i), "warmup." + (w + 1), courier, sql.get(i)));
      }
      for (String way : order) {
        lines.add(singleRun(spark, names.get(i), way, way.startsWith("courier"), sql.get(i)));
      }
      lines.addAll(warm);
    }
    spark.sparkContext().setLocalProperty(COURIER, null);
  }

  /**
   * The timed runs of the {@code i}th query, in order: A B B A, the readers' roles swapped from one
   * query to the next. After a single untimed run, a query's first timed run was the slowest in
   * most pairs whatever its reader (1.11-1.25x the same reader's last run), so a plain A B order
   * favours whichever reader goes second; under A B B A a drift linear in time weighs on both
   * readers' sums alike.
   */
  public static List<String> order(int i) {
    return i % 2 == 0
        ? List.of("stock.1", "courier.1", "courier.2", "stock.2")
        : List.of("courier.1", "stock.1", "stock.2", "courier.2");
  }

  /**
   * The job group of one run of the single stream ({@code way}: warmup, or a reader and its round
   * as {@link #order} names it), which the launcher looks up in the event log.
   */
  public static String jobGroup(String query, String way) {
    return query + "-" + way;
  }

  /**
   * Runs {@code name} once in the single stream and returns its result line; a query that fails is
   * logged and its line says so, and the stream goes on.
   */
  private static String singleRun(
      SparkSession spark, String name, String way, boolean courier, String sql) {
    SparkContext sc = spark.sparkContext();
    String group = jobGroup(name, way);
    sc.setLocalProperty(COURIER, Boolean.toString(courier));
    sc.setJobGroup(group, name + " " + way, false);
    long t0 = System.nanoTime();
    try {
      Result r = run(spark, sql);
      return String.join(
          "\t",
          "single",
          name,
          way,
          way.startsWith("warmup") ? "0" : seconds(t0),
          Integer.toString(r.rows),
          r.digest);
    } catch (Exception e) {
      LOG.error("query={} way={} failed; going on with the next run", name, way, e);
      sc.cancelJobGroup(group); // stages the failed plan still had running
      return String.join("\t", "single", name, way, "FAILED", oneLine(e));
    }
  }

  /** An exception as one line of a result file: its class and its message's first line. */
  static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? "" : e.getMessage().strip();
    int nl = m.indexOf('\n');
    m = (nl < 0 ? m : m.substring(0, nl)).replaceAll("\\p{Cntrl}", " ").strip();
    String line = e.getClass().getSimpleName() + (m.isEmpty() ? "" : ": " + m);
    return line.length() > 300 ? line.substring(0, 297) + "..." : line;
  }

  private static void streams(
      SparkSession spark, List<String> names, List<String> sql, int n, List<String> lines)
      throws Exception {
    List<Callable<Void>> work = new ArrayList<>();
    for (int s = 0; s < n; s++) {
      int stream = s;
      work.add(
          () -> {
            spark.sparkContext().setLocalProperty("spark.scheduler.pool", "stream" + stream);
            int first = stream * names.size() / n; // each stream starts at a different query
            for (int k = 0; k < names.size(); k++) {
              int i = (first + k) % names.size();
              timed(spark, stream, names.get(i), sql.get(i), lines);
            }
            return null;
          });
    }
    runAll(work);
  }

  /**
   * Stream s submits its k-th query (from its own starting point in the list) at (k + s / n) * gap
   * seconds, whether or not the ones before it ended.
   */
  private static void openLoop(
      SparkSession spark,
      List<String> names,
      List<String> sql,
      int n,
      double gap,
      List<String> lines)
      throws Exception {
    long start = System.nanoTime();
    List<Callable<Void>> work = new ArrayList<>();
    for (int s = 0; s < n; s++) {
      int first = s * names.size() / n;
      for (int k = 0; k < names.size(); k++) {
        int stream = s;
        int i = (first + k) % names.size();
        long at = start + (long) ((k + (double) s / n) * gap * 1e9);
        work.add(
            () -> {
              long wait = at - System.nanoTime();
              if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
              }
              spark
                  .sparkContext()
                  .setLocalProperty("spark.scheduler.pool", "stream" + stream + "-" + names.get(i));
              timed(spark, stream, names.get(i), sql.get(i), lines);
              return null;
            });
      }
    }
    runAll(work);
  }

  /**
   * Runs {@code name} as one of stream {@code stream}'s queries and records its time, rows and
   * digest.
   */
  private static void timed(
      SparkSession spark, int stream, String name, String sql, List<String> lines) {
    spark.sparkContext().setJobGroup("stream" + stream + "-" + name, name, false);
    long t0 = System.nanoTime();
    Result r = run(spark, sql);
    lines.add(
        String.join(
            "\t",
            "stream",
            Integer.toString(stream),
            name,
            seconds(t0),
            Integer.toString(r.rows),
            r.digest));
  }

  /** Runs each task on a thread of its own and waits for them all; a failed one fails the run. */
  private static void runAll(List<Callable<Void>> tasks) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
    try {
      List<Future<Void>> running = new ArrayList<>();
      for (Callable<Void> t : tasks) {
        running.add(pool.submit(t));
      }
      for (Future<Void> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private record Result(int rows, String digest) {}

  /** Runs a query to the end; its rows' digest does not depend on their order. */
  private static Result run(SparkSession spark, String sql) {
    List<String> rows = new ArrayList<>();
    for (Row r : spark.sql(sql).collectAsList()) {
      rows.add(r.toString());
    }
    Collections.sort(rows);
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (String r : rows) {
        md.update(r.getBytes(StandardCharsets.UTF_8));
        md.update((byte) '\n');
      }
      return new Result(rows.size(), HexFormat.of().formatHex(md.digest()).substring(0, 16));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String seconds(long startNanos) {
    return String.format(Locale.ROOT, "%.3f", (System.nanoTime() - startNanos) / 1e9);
  }
}
