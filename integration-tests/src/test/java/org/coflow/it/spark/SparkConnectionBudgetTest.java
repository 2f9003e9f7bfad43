package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * Courier's MaxNum set where Spark users set things ({@code --conf spark.shuffle.courier.maxNum=2})
 * reaches every embedded agent, and binds: with a small MinSize each executor's unified flow to the
 * other would be split over the default budget of 8 connections, but no agent holds more than 2.
 */
class SparkConnectionBudgetTest {
  @Test
  void maxNumFromSparkConfBoundsEveryAgentsDataConnections() throws Exception {
    // Uncompressed, so that the blocks are as large as the records (MBs per host pair, above
    // MinSize).
    JavaSparkContext sc =
        LocalCluster.start(
            "connection-budget",
            Map.of(
                "spark.shuffle.courier.maxNum",
                "2",
                "spark.shuffle.courier.minSize",
                "64k",
                "spark.shuffle.compress",
                "false"));
    try {
      List<Integer> xs = new ArrayList<>();
      for (int i = 0; i < 4000; i++) {
        xs.add(i);
      }
      // About 16 MB shuffled, each reduce task reading MBs from the other executor's agent.
      long n =
          sc.parallelize(xs, 4)
              .mapToPair(i -> new Tuple2<>(i % 8, "x".repeat(4000) + i))
              .groupByKey(8)
              .mapValues(
                  vs -> {
                    long c = 0;
                    for (String v : vs) {
                      c += v.length();
                    }
                    return c;
                  })
              .count();
      assertEquals(8, n);
      Map<String, Map<String, Long>> metrics = LocalCluster.metrics(sc);
      Map<String, Long> budget = LocalCluster.pick(metrics, "connectionBudget");
      Map<String, Long> used = LocalCluster.pick(metrics, "maxDataConnections");
      budget.forEach(
          (exec, b) ->
              assertEquals(2L, b, "executor " + exec + "'s agent got MaxNum from the Spark conf"));
      used.forEach(
          (exec, c) ->
              assertTrue(c <= 2, "executor " + exec + "'s agent held " + c + " data connections"));
      assertTrue(
          used.values().stream().anyMatch(c -> c == 2),
          "some agent split its unified flow up to the budget (else the bound was never tested): "
              + used);
    } finally {
      sc.stop();
    }
  }
}
