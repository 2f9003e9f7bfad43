package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * The same jobs read once with Spark's own fetch and once through the Courier agents, on one real
 * two-executor cluster (the job-local property {@code spark.shuffle.courier.enabled=false} picks
 * the stock reader; the map side is Spark's sort shuffle either way): results must be equal, and
 * the agents' counters must show the bytes crossed agent-to-agent connections.
 */
class SparkShuffleDifferentialTest {
  private static JavaSparkContext sc;

  @BeforeAll
  static void start() throws Exception {
    sc =
        LocalCluster.start(
            "differential",
            Map.of(
                "spark.sql.adaptive.enabled",
                "true",
                "spark.sql.adaptive.skewJoin.enabled",
                "true",
                "spark.sql.autoBroadcastJoinThreshold",
                "-1",
                // The executors' agents admit only peers that prove the application's secret.
                "spark.authenticate",
                "true",
                "spark.authenticate.secret",
                "a secret of the differential test's application"));
  }

  @AfterAll
  static void stop() {
    if (sc != null) {
      sc.stop();
    }
  }

  /** Runs {@code job} with the stock reader, then with Courier's; returns both results. */
  private static <T> List<T> both(Callable<T> job) throws Exception {
    List<T> out = new ArrayList<>();
    for (String enabled : List.of("false", "true")) {
      sc.setLocalProperty("spark.shuffle.courier.enabled", enabled);
      try {
        out.add(job.call());
      } finally {
        sc.setLocalProperty("spark.shuffle.courier.enabled", null);
      }
    }
    return out;
  }

  private static <T> void assertSame(Callable<T> job) throws Exception {
    List<T> r = both(job);
    assertEquals(r.get(0), r.get(1));
  }

  private static JavaPairRDD<Integer, Integer> pairs(int n, int keys, int slices) {
    List<Integer> xs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      xs.add(i);
    }
    return sc.parallelize(xs, slices).mapToPair(i -> new Tuple2<>((i * 7919) % keys, i));
  }

  private static <K extends Comparable<K>, V> List<String> sorted(List<Tuple2<K, V>> rows) {
    return rows.stream().map(Tuple2::toString).sorted().collect(Collectors.toList());
  }

  @Test
  void reduceByKeyGroupByKeyJoinSortByKeyRepartition() throws Exception {
    long before =
        LocalCluster.perExecutor(sc, "bytesFetchedFromPeers").values().stream()
            .mapToLong(x -> x)
            .sum();
    assertSame(() -> sorted(pairs(200_000, 1000, 6).reduceByKey(Integer::sum, 5).collect()));
    assertSame(
        () ->
            sorted(
                pairs(50_000, 300, 4)
                    .groupByKey(7)
                    .mapValues(
                        vs -> {
                          List<Integer> l = new ArrayList<>();
                          vs.forEach(l::add);
                          Collections.sort(l);
                          return l;
                        })
                    .collect()));
    assertSame(
        () ->
            sorted(
                pairs(30_000, 500, 3).join(pairs(20_000, 400, 5).mapValues(v -> -v), 6).collect()));
    // sortByKey: the order itself must be equal, not just the contents.
    assertSame(() -> pairs(100_000, 100_000, 5).sortByKey(false, 4).collect().toString());
    assertSame(
        () ->
            pairs(40_000, 1000, 3)
                .values()
                .repartition(7)
                .glom()
                .map(
                    p -> {
                      List<Integer> l = new ArrayList<>(p);
                      Collections.sort(l);
                      return l;
                    })
                .collect()
                .stream()
                .flatMap(List::stream)
                .sorted()
                .collect(Collectors.toList()));
    long after =
        LocalCluster.perExecutor(sc, "bytesFetchedFromPeers").values().stream()
            .mapToLong(x -> x)
            .sum();
    Map<String, Long> authenticated = LocalCluster.perExecutor(sc, "authenticated");
    assertEquals(2, authenticated.size(), "both executors report: " + authenticated);
    authenticated.forEach(
        (exec, on) ->
            assertEquals(
                1L, on, "executor " + exec + "'s agent admits only holders of the app's secret"));
    // How much crosses depends on where the tasks ran (0.98 to several MB seen); stock reads would
    // add nothing.
    assertTrue(
        after - before > 256_000, "agents fetched " + (after - before) + " bytes from each other");
  }

  @Test
  void dataFrameAggregationWithAqe() throws Exception {
    SparkSession spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
    long batchedBefore =
        LocalCluster.perExecutor(sc, "batchedReads").values().stream().mapToLong(x -> x).sum();
    assertSame(
        () -> {
          Dataset<Row> df =
              spark
                  .range(0, 300_000, 1, 6)
                  .withColumn("k", functions.expr("id % 997"))
                  .withColumn("v", functions.expr("id * 3"));
          return df
              .groupBy("k")
              .agg(functions.sum("v"), functions.count("v"), functions.max("id"))
              .collectAsList()
              .stream()
              .map(Row::toString)
              .sorted()
              .collect(Collectors.toList());
        });
    // A skewed join: one key holds half the rows (AQE's skew handling reads map-index ranges).
    assertSame(
        () -> {
          Dataset<Row> big =
              spark
                  .range(0, 200_000, 1, 8)
                  .withColumn("k", functions.expr("CASE WHEN id % 2 = 0 THEN 0 ELSE id % 500 END"));
          Dataset<Row> small = spark.range(0, 500, 1, 2).withColumnRenamed("id", "k2");
          return big
              .join(small, big.col("k").equalTo(small.col("k2")))
              .groupBy("k")
              .count()
              .collectAsList()
              .stream()
              .map(Row::toString)
              .sorted()
              .collect(Collectors.toList());
        });
    // AQE coalesced the small partitions, so our reader read runs of them as one stream per map
    // output, as Spark's batch fetch does (and the rows above are still equal).
    long batched =
        LocalCluster.perExecutor(sc, "batchedReads").values().stream().mapToLong(x -> x).sum();
    assertTrue(batched > batchedBefore, "batched reads " + batchedBefore + " -> " + batched);
  }

  @Test
  void emptyPartitionsSkewAndRecordsLargerThanAChunk() throws Exception {
    // 20 partitions, keys only in 3 of them: most reduce tasks read nothing.
    assertSame(
        () ->
            pairs(10_000, 3, 4)
                .partitionBy(new HashPartitioner(20))
                .glom()
                .map(List::size)
                .collect());
    // One key with most of the data.
    assertSame(
        () ->
            sorted(
                pairs(100_000, 1000, 4)
                    .mapToPair(t -> new Tuple2<>(t._2() % 10 < 8 ? 0 : t._1(), 1))
                    .reduceByKey(Integer::sum, 4)
                    .collect()));
    // Records of 300 KB: each spans several 64 KiB chunks.
    assertSame(
        () -> {
          JavaRDD<Integer> ids = sc.parallelize(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), 4);
          return sorted(
              ids.mapToPair(i -> new Tuple2<>(i % 3, "x".repeat(300_000) + i))
                  .groupByKey(2)
                  .mapValues(
                      vs -> {
                        List<Integer> l = new ArrayList<>();
                        vs.forEach(v -> l.add(v.length() * 31 + v.hashCode()));
                        Collections.sort(l);
                        return l;
                      })
                  .collect());
        });
  }

  @Test
  void severalJobsAtOnce() throws Exception {
    List<Callable<List<String>>> jobs = new ArrayList<>();
    for (int j = 0; j < 3; j++) {
      int keys = 100 + 200 * j;
      jobs.add(() -> sorted(pairs(60_000, keys, 4).reduceByKey(Integer::sum, 3).collect()));
    }
    List<List<String>> stock = new ArrayList<>();
    for (Callable<List<String>> job : jobs) {
      sc.setLocalProperty("spark.shuffle.courier.enabled", "false");
      stock.add(job.call());
      sc.setLocalProperty("spark.shuffle.courier.enabled", null);
    }
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<List<String>>> ours = new ArrayList<>();
      for (Callable<List<String>> job : jobs) {
        ours.add(pool.submit(job));
      }
      for (int j = 0; j < jobs.size(); j++) {
        assertEquals(stock.get(j), ours.get(j).get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
