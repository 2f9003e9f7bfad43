package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.coflow.bench.tpcds.TpcdsGenerator;
import org.coflow.bench.tpcds.TpcdsTables;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Queries derived from TPC-DS at scale factor 0.1, broadcast joins off (every join shuffles): each
 * query read with Spark's own fetch and through the Courier agents on the same two-executor cluster
 * gives the same rows, and the Courier run really went through the agents: no executor fell back to
 * Spark's fetch, reduce tasks read through the agents, and over the queries every executor received
 * bytes from the other's agent.
 */
class TpcdsTest {
  private static JavaSparkContext sc;
  private static SparkSession spark;

  /** Per executor, the bytes its agent fetched from the other's since the start. */
  private static Map<String, Map<String, Long>> atStart;

  @BeforeAll
  static void start() throws Exception {
    sc =
        LocalCluster.start(
            "tpcds",
            Map.of(
                "spark.sql.autoBroadcastJoinThreshold",
                "-1",
                "spark.sql.adaptive.enabled",
                "true"));
    spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
    TpcdsTables.register(
        spark,
        TpcdsGenerator.generate(
            Path.of(System.getProperty("user.dir"), "target", "tpcds"),
            0.1,
            Runtime.getRuntime().availableProcessors()));
    // The generator must have produced the returns with the sales (q17 and q29 join them).
    for (String t :
        new String[] {
          "store_sales", "store_returns", "catalog_sales", "catalog_returns", "web_sales"
        }) {
      long n = spark.table(t).count();
      org.junit.jupiter.api.Assertions.assertTrue(n > 1000, t + " has " + n + " rows");
    }
    atStart = LocalCluster.metrics(sc);
  }

  @AfterAll
  static void stop() {
    try {
      if (sc != null && atStart != null) {
        Map<String, Long> received =
            LocalCluster.growth(atStart, LocalCluster.metrics(sc), "bytesFetchedFromPeers");
        received.forEach(
            (exec, bytes) ->
                assertTrue(
                    bytes > 0,
                    "executor "
                        + exec
                        + " received no bytes from the other's agent over the queries: "
                        + received));
      }
    } finally {
      if (sc != null) {
        sc.stop();
      }
    }
  }

  private static List<String> run(String sql, String courier) {
    sc.setLocalProperty("spark.shuffle.courier.enabled", courier);
    try {
      return spark.sql(sql).collectAsList().stream()
          .map(Row::toString)
          .sorted()
          .collect(Collectors.toList());
    } finally {
      sc.setLocalProperty("spark.shuffle.courier.enabled", null);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"q4", "q17", "q29", "q72", "q95"})
  void sameRowsWithBothShuffles(String query) throws Exception {
    String sql = TpcdsGenerator.query(query);
    List<String> stock = run(sql, "false");
    Map<String, Map<String, Long>> before = LocalCluster.metrics(sc);
    List<String> ours = run(sql, "true");
    assertEquals(stock, ours, query);
    Map<String, Map<String, Long>> after = LocalCluster.metrics(sc);
    Map<String, Long> fellBack = LocalCluster.growth(before, after, "fallbacks");
    fellBack.forEach(
        (exec, n) ->
            assertEquals(0L, n, query + ": executor " + exec + " fell back to Spark's fetch"));
    long throughAgents =
        LocalCluster.growth(before, after, "readsThroughAgents").values().stream()
            .mapToLong(Long::longValue)
            .sum();
    assertTrue(throughAgents > 0, query + ": no reduce task read through the agents");
    System.out.println("TPC-DS " + query + ": " + ours.size() + " rows, equal with both shuffles");
  }
}
