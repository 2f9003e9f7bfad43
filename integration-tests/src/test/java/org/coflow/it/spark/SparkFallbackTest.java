package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/** The host job never breaks: no agent at all, or an agent that dies between map and reduce. */
class SparkFallbackTest {
  private static List<String> wordCount(JavaSparkContext sc) {
    List<Integer> xs = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      xs.add(i);
    }
    JavaPairRDD<Integer, Integer> counts =
        sc.parallelize(xs, 6).mapToPair(i -> new Tuple2<>(i % 777, 1)).reduceByKey(Integer::sum, 4);
    return counts.collect().stream().map(Tuple2::toString).sorted().collect(Collectors.toList());
  }

  private static List<String> expected() {
    List<String> out = new ArrayList<>();
    for (int k = 0; k < 777; k++) {
      out.add(new Tuple2<>(k, 100_000 / 777 + (k < 100_000 % 777 ? 1 : 0)).toString());
    }
    out.sort(null);
    return out;
  }

  @Test
  void unreachableAgentMeansSparksOwnFetchAndTheJobSucceeds() throws Exception {
    // Nothing listens on port 1: executors cannot reach "their host's agent".
    JavaSparkContext sc =
        LocalCluster.start("no-agent", Map.of("spark.shuffle.courier.agent", "127.0.0.1:1"));
    try {
      assertEquals(expected(), wordCount(sc));
      long fallbacks =
          LocalCluster.perExecutor(sc, "fallbacks").values().stream().mapToLong(x -> x).sum();
      assertTrue(fallbacks > 0, "reads that fell back: " + fallbacks);
    } finally {
      sc.stop();
    }
  }

  @Test
  void sparksOwnEncryptionIsNeverDowngradedToPlaintextAgents() throws Exception {
    JavaSparkContext sc =
        LocalCluster.start(
            "encrypted",
            Map.of(
                "spark.authenticate", "true",
                "spark.authenticate.secret", "a test secret of the encrypted application",
                "spark.network.crypto.enabled", "true"));
    try {
      assertEquals(expected(), wordCount(sc));
      long throughAgents =
          LocalCluster.perExecutor(sc, "readsThroughAgents").values().stream()
              .mapToLong(x -> x)
              .sum();
      assertEquals(0, throughAgents, "blocks moved in clear through the agents");
    } finally {
      sc.stop();
    }
  }

  @Test
  void theDriverTakesAnExecutorsAgentOnlyFromThatExecutorsHost() throws Exception {
    JavaSparkContext sc = LocalCluster.start("directory", Map.of());
    try {
      assertEquals(expected(), wordCount(sc)); // the executors registered their agents
      // The check the driver's agent directory runs on each registration (this JVM is the
      // driver): the sender's address against the executor's block manager host.
      java.lang.reflect.Method refusal =
          Class.forName("org.apache.spark.shuffle.courier.AgentDirectory")
              .getDeclaredMethod("refusal", String.class, String.class);
      refusal.setAccessible(true);
      assertEquals(null, refusal.invoke(null, "0", "127.0.0.1"), "the executor's own host");
      Object elsewhere = refusal.invoke(null, "0", "192.0.2.7");
      assertTrue(
          elsewhere != null && elsewhere.toString().contains("not from executor 0"),
          String.valueOf(elsewhere));
      Object unknown = refusal.invoke(null, "no-such-executor", "127.0.0.1");
      assertTrue(
          unknown != null && unknown.toString().contains("no block manager"),
          String.valueOf(unknown));
    } finally {
      sc.stop();
    }
  }

  @Test
  void blocksOfAnotherExecutorOnThisHostAreReadFromItsFilesAsSparkDoes() throws Exception {
    // Spark's default: an executor reads the files of another executor on its host from disk.
    JavaSparkContext sc =
        LocalCluster.start("host-disk", Map.of("spark.shuffle.readHostLocalDisk", "true"));
    try {
      assertEquals(expected(), wordCount(sc));
      Map<String, Map<String, Long>> m = LocalCluster.metrics(sc);
      long fromDisk = sum(LocalCluster.pick(m, "hostDiskBlocks"));
      long throughAgents = sum(LocalCluster.pick(m, "readsThroughAgents"));
      assertTrue(fromDisk > 0, "blocks read from the other executor's files: " + fromDisk);
      assertTrue(throughAgents > 0, "reduce tasks read by the plugin: " + throughAgents);
      assertEquals(
          0, sum(LocalCluster.pick(m, "bytesFetchedFromPeers")), "bytes sent between agents");
      assertEquals(0, sum(LocalCluster.pick(m, "fallbacks")), "reads that fell back");
    } finally {
      sc.stop();
    }
  }

  private static long sum(Map<String, Long> perExecutor) {
    return perExecutor.values().stream().mapToLong(x -> x).sum();
  }

  @Test
  void agentKilledBetweenMapAndReduceMeansAStageRetryAndEqualResults() throws Exception {
    JavaSparkContext sc =
        LocalCluster.start("killed-agent", Map.of("spark.shuffle.courier.fetchTimeout", "20s"));
    try {
      List<Integer> xs = new ArrayList<>();
      for (int i = 0; i < 100_000; i++) {
        xs.add(i);
      }
      JavaPairRDD<Integer, Integer> counts =
          sc.parallelize(xs, 6)
              .mapToPair(i -> new Tuple2<>(i % 777, 1))
              .reduceByKey(Integer::sum, 4);
      assertEquals(
          expected(),
          counts.collect().stream().map(Tuple2::toString).sorted().collect(Collectors.toList()));
      // Kill executor 0's agent: its map outputs are still registered with the driver, but the
      // agent that serves them is gone. Reading again skips the map stage and must fetch them.
      long killed = 0;
      for (int attempt = 0; attempt < 10 && killed == 0; attempt++) {
        killed =
            sc.parallelize(List.of(1, 2, 3, 4, 5, 6, 7, 8), 8)
                .map(
                    x -> {
                      Thread.sleep(100);
                      boolean mine = "0".equals(org.apache.spark.SparkEnv.get().executorId());
                      Object manager = org.apache.spark.SparkEnv.get().shuffleManager();
                      return mine
                              && (Boolean) manager.getClass().getMethod("stopAgent").invoke(manager)
                          ? 1L
                          : 0L;
                    })
                .reduce(Long::sum);
      }
      assertEquals(1, killed, "executor 0's agent was stopped once");
      assertEquals(
          expected(),
          counts.collect().stream().map(Tuple2::toString).sorted().collect(Collectors.toList()));
    } finally {
      sc.stop();
    }
  }
}
