package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.coflow.bench.cli.SparkDifferentialJob;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real {@code spark-submit} of each pyspark release in {@code coflow.it.pyspark} (set up by
 * {@code bin/lib/pyspark-env.sh}, cached outside {@code target/} after the first download) runs a
 * PySpark RDD and SQL job on {@code local-cluster[2,1,1024]} with the jar of its line added exactly
 * as the README says (Spark 3.5: both extraClassPaths; Spark 4: {@code --jars} only), each shuffle
 * once through the agents and once with Spark's own fetch: same rows, the known values, and each
 * executor's {@code CourierShuffle} metrics (Spark's own CSV sink) show reads through the agents,
 * bytes from the other executor's agent and no fallback. The same code as {@code bin/coflow bench
 * spark-versions}.
 */
class SparkSubmitTest {
  private static final Path MODULE = Path.of(System.getProperty("user.dir"));

  static Stream<String> versions() {
    return Stream.of(System.getProperty("coflow.it.pyspark", "3.5.9").split(","));
  }

  @ParameterizedTest(name = "pyspark {0}")
  @MethodSource("versions")
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void theReadmeLineRunsAJobThroughCourier(String version) throws Exception {
    SparkDifferentialJob.Outcome o =
        SparkDifferentialJob.run(
            MODULE.getParent(), version, MODULE.resolve("target/spark-submit"), System.err);
    System.out.printf(
        "spark-submit of pyspark %s (%s): rows equal %s, %d reads through agents, %d bytes"
            + " from peer agents, %d fallbacks, %.1f s%n",
        version,
        o.jarMode(),
        o.result().get("courier_digest") + " / " + o.result().get("stock_digest"),
        o.total("readsThroughAgents"),
        o.total("bytesFetchedFromPeers"),
        o.total("fallbacks"),
        o.seconds());
    assertNull(o.failure(), "pyspark " + version);
    assertEquals(version, o.result().get("spark"));
    assertEquals(o.result().get("stock_digest"), o.result().get("courier_digest"));
    assertEquals(List.of("0", "1"), List.copyOf(o.metrics().keySet()));
    for (var m : o.metrics().values()) {
      assertEquals(0L, m.get("fallbacks"));
      assertTrue(m.get("readsThroughAgents") > 0 && m.get("bytesFetchedFromPeers") > 0, "" + m);
    }
  }
}
