package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.coflow.bench.cli.SparkDifferentialJob;
import org.coflow.bench.sparktestbed.SparkCluster;
import org.coflow.bench.testbed.Network;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real Spark across network-namespace hosts: a standalone Master in the root namespace, a Worker in
 * each of two host namespaces joined by tc-shaped links, the driver in the root namespace. The
 * differential job (each shuffle once through the Courier agents, once with Spark's own fetch) must
 * give the same rows with every executor reading through agents and receiving bytes from the other
 * host's: first with each executor's embedded agent, then with one agent per host, shared by the
 * host's executors and reached by port ({@code spark.shuffle.courier.agent=PORT}). Skipped where
 * namespaces cannot be made.
 */
class SparkAcrossHostsTest {
  private static final Path MODULE = Path.of(System.getProperty("user.dir"));

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void theDifferentialJobRunsAcrossShapedHostsWithEmbeddedAndHostAgents() throws Exception {
    String why = Network.unavailableReason();
    assumeTrue(why == null, "skipped: " + why);
    Path home = MODULE.getParent();
    Path work = Files.createDirectories(MODULE.resolve("target/spark-across-hosts"));
    String version = System.getProperty("coflow.it.pyspark", "3.5.9").split(",")[0];
    Path sparkHome = SparkDifferentialJob.sparkHome(home, version, System.err);
    try (Network net = Network.create(2, new Network.Link(200e6, 256 << 10, "reno", 0, 0));
        SparkCluster cluster =
            SparkCluster.start(net, sparkHome, work.resolve("cluster"), 1, 1024, "", 120)) {
      List<String> conf =
          List.of(
              "spark.driver.host=" + net.rootAddress(),
              "spark.executor.memory=640m",
              "spark.executor.cores=1",
              "spark.cores.max=2");
      SparkDifferentialJob.Outcome embedded =
          SparkDifferentialJob.run(
              home,
              version,
              work.resolve("embedded"),
              System.err,
              new SparkDifferentialJob.Cluster(cluster.masterUrl(), net.rootAddress(), conf));
      report("embedded agents", embedded);
      assertNull(embedded.failure(), "embedded agents");

      Path secret = work.resolve("cluster.secret");
      Files.deleteIfExists(secret);
      Files.createFile(
          secret,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      byte[] key = new byte[32];
      new SecureRandom().nextBytes(key);
      Files.writeString(secret, HexFormat.of().formatHex(key));
      cluster.startAgents(
          List.of("env", "COFLOW_NO_BUILD=1", home.resolve("bin/coflow").toString()),
          secret,
          List.of(),
          60);
      List<String> hostAgents = new java.util.ArrayList<>(conf);
      hostAgents.add("spark.shuffle.courier.agent=" + SparkCluster.AGENT_PORT);
      hostAgents.add("spark.shuffle.courier.secretFile=" + secret);
      SparkDifferentialJob.Outcome shared =
          SparkDifferentialJob.run(
              home,
              version,
              work.resolve("host-agents"),
              System.err,
              new SparkDifferentialJob.Cluster(cluster.masterUrl(), net.rootAddress(), hostAgents));
      report("host agents", shared);
      // The executors' own metrics count their embedded agents' bytes only: here the host agents
      // fetched, and say so as they stop.
      List<java.util.Map<String, String>> agents = cluster.stopAgents();
      System.out.println("across hosts, host agents' data planes: " + agents);
      for (int h = 0; h < 2; h++) {
        java.util.Map<String, String> a = agents.get(h);
        assertTrue(
            Long.parseLong(a.getOrDefault("streams", "0")) > 0,
            "host " + h + "'s agent fetched nothing from the other host: " + a);
        assertTrue(
            Long.parseLong(a.getOrDefault("served", "0")) > 0,
            "host " + h + "'s agent served nothing to the other host: " + a);
      }
      assertEquals(
          shared.result().get("stock_digest"), shared.result().get("courier_digest"), "rows");
      for (var m : shared.metrics().values()) {
        assertEquals(0L, m.get("fallbacks"), "fell back to Spark's fetch: " + m);
        assertTrue(m.get("readsThroughAgents") > 0, "read nothing through the agent: " + m);
      }
    }
  }

  private static void report(String what, SparkDifferentialJob.Outcome o) {
    System.out.printf(
        "across hosts, %s: rows %s / %s, %d reads through agents, %d bytes from peer agents,"
            + " %d fallbacks, %.1f s%n",
        what,
        o.result().get("courier_digest"),
        o.result().get("stock_digest"),
        o.total("readsThroughAgents"),
        o.total("bytesFetchedFromPeers"),
        o.total("fallbacks"),
        o.seconds());
  }
}
