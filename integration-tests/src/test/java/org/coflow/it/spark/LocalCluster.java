package org.coflow.it.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * A real {@code local-cluster[2,1,1024]}: two executor JVMs launched by a standalone worker, each
 * loading the shaded jar from this JVM's class path (spark.testing hands it over), so every
 * cross-executor fetch crosses agent-to-agent TCP on loopback (unless a test lets the executors
 * read each other's files, {@code spark.shuffle.readHostLocalDisk}).
 */
final class LocalCluster {
  static final String MANAGER = "org.apache.spark.shuffle.courier.CourierShuffleManager";

  private LocalCluster() {}

  static JavaSparkContext start(String name, Map<String, String> extra) throws IOException {
    Files.createDirectories(Path.of(System.getProperty("spark.test.home"), "jars"));
    SparkConf conf =
        new SparkConf()
            .setMaster("local-cluster[2,1,1024]")
            .setAppName(name)
            .set("spark.shuffle.manager", MANAGER)
            .set("spark.ui.enabled", "false")
            .set("spark.driver.host", "127.0.0.1")
            .set("spark.driver.bindAddress", "127.0.0.1")
            .set("spark.executor.extraJavaOptions", "-Dio.netty.leakDetection.level=advanced")
            .set("spark.sql.shuffle.partitions", "8")
            // The two executors stand for two hosts: their blocks go through the agents, not
            // from each other's files as on one host.
            .set("spark.shuffle.readHostLocalDisk", "false");
    extra.forEach(conf::set);
    JavaSparkContext sc = new JavaSparkContext(conf);
    waitForExecutors(sc, 2);
    return sc;
  }

  private static void waitForExecutors(JavaSparkContext sc, int n) {
    long deadline = System.currentTimeMillis() + 120_000;
    while (sc.sc().getExecutorMemoryStatus().size() < n + 1) { // the driver counts too
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "executors did not start; see " + System.getProperty("spark.test.home") + "/work");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** The counters of {@code CourierShuffleMetrics} the tests read. */
  static final List<String> METRICS =
      List.of(
          "readsThroughAgents",
          "fallbacks",
          "batchedReads",
          "hostDiskBlocks",
          "bytesFetchedFromPeers",
          "connectionBudget",
          "maxDataConnections",
          "authenticated");

  /**
   * Per executor, every counter of its shuffle manager's {@code CourierShuffleMetrics}, in one job
   * of enough tasks to reach both executors. Reflection: the executors load the manager from the
   * shaded jar, not from this test's class path.
   */
  static Map<String, Map<String, Long>> metrics(JavaSparkContext sc) {
    List<Tuple2<String, Map<String, Long>>> values =
        sc.parallelize(List.of(1, 2, 3, 4, 5, 6, 7, 8), 8)
            .mapPartitions(
                it -> {
                  Thread.sleep(200); // spread the tasks over both executors
                  String exec = org.apache.spark.SparkEnv.get().executorId();
                  Object manager = org.apache.spark.SparkEnv.get().shuffleManager();
                  Object metrics = manager.getClass().getMethod("metrics").invoke(manager);
                  Map<String, Long> v = new HashMap<>();
                  for (String m : METRICS) {
                    v.put(
                        m, ((Number) metrics.getClass().getMethod(m).invoke(metrics)).longValue());
                  }
                  return List.of(new Tuple2<>(exec, v)).iterator();
                })
            .collect();
    Map<String, Map<String, Long>> out = new HashMap<>();
    for (Tuple2<String, Map<String, Long>> t : values) {
      out.merge(t._1(), t._2(), (a, b) -> a); // counters only grow within the job
    }
    if (out.size() < 2) {
      throw new IllegalStateException("the metrics probe reached only executors " + out.keySet());
    }
    return out;
  }

  /** Per executor, the value of one counter ({@link #METRICS}). */
  static Map<String, Long> perExecutor(JavaSparkContext sc, String metric) {
    return pick(metrics(sc), metric);
  }

  /** Per executor, one counter out of a snapshot of {@link #metrics}. */
  static Map<String, Long> pick(Map<String, Map<String, Long>> snapshot, String metric) {
    Map<String, Long> out = new HashMap<>();
    snapshot.forEach((exec, m) -> out.put(exec, m.get(metric)));
    return out;
  }

  /**
   * Per executor, how much {@code metric} grew from snapshot {@code before} to snapshot {@code
   * after}.
   */
  static Map<String, Long> growth(
      Map<String, Map<String, Long>> before, Map<String, Map<String, Long>> after, String metric) {
    Map<String, Long> out = new HashMap<>();
    after.forEach(
        (exec, m) ->
            out.put(
                exec,
                m.get(metric) - before.getOrDefault(exec, Map.of()).getOrDefault(metric, 0L)));
    return out;
  }
}
