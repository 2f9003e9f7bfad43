package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.coflow.bench.cli.SparkSubmit;
import org.coflow.bench.sparktestbed.SparkTestbed;
import org.coflow.bench.sparktestbed.SparkTestbedReport;
import org.coflow.bench.sparktestbed.TraceTenants;
import org.coflow.testbed.Network;
import org.coflow.testbed.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bench spark-testbed} in small: a Spark standalone cluster across two network-namespace
 * hosts joined by tc-shaped links, two applications at once: one with a large shuffle, the other
 * with a small one that arrives while the large one is on the wire. Once with stock Spark and once
 * with the plugin, one Courier agent per host shared by both applications, and the master running
 * Varys (smallest coflow first, sizes from the map statuses). Both setups must return the same
 * rows; under the plugin every reduce task must read through the agents and both hosts' agents must
 * fetch from and serve the other host; and Varys must finish the small shuffle before the large
 * one. Skipped where namespaces cannot be made.
 */
class SparkTestbedTest {
  private static final Path MODULE = Path.of(System.getProperty("user.dir"));
  private static final long MB = 1 << 20;

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void aSmallShuffleOvertakesALargeOneUnderVarysWithTheSameRowsAsStockSpark() throws Exception {
    String why = Network.unavailableReason();
    assumeTrue(why == null, "skipped: " + why);
    Path home = MODULE.getParent();
    String version = System.getProperty("coflow.it.pyspark", "3.5.9").split(",")[0];
    Workload two =
        new Workload(
            "a large and a small shuffle",
            2,
            List.of(
                new Workload.Coflow(
                    1,
                    0,
                    new int[] {0, 1},
                    new int[] {1, 1},
                    List.of(new Workload.Reducer(0, 40 * MB), new Workload.Reducer(1, 40 * MB))),
                new Workload.Coflow(
                    2,
                    1500,
                    new int[] {0, 1},
                    new int[] {1, 1},
                    List.of(new Workload.Reducer(0, MB), new Workload.Reducer(1, MB)))));
    SparkTestbed.Plan plan =
        new SparkTestbed.Plan(
            2,
            new Network.Link(50e6, 128 << 10, "reno", 0, 128 << 10),
            version,
            new TraceTenants(two, 2, 2),
            List.of(new SparkTestbed.Setup("stock"), new SparkTestbed.Setup("varys")),
            1,
            2,
            512,
            List.of(),
            0,
            5,
            List.of(
                "env",
                "COFLOW_NO_BUILD=1",
                "COFLOW_JAVA_OPTS=-Xmx256m",
                home.resolve("bin/coflow").toString()),
            MODULE.resolve("target/spark-testbed"));
    List<SparkTestbed.Run> runs =
        SparkTestbed.run(
            plan,
            SparkSubmit.submitter(home, version, System.err),
            (setup, round, what) -> System.out.println("spark testbed: " + setup + ": " + what));
    SparkTestbedReport report = new SparkTestbedReport(plan, runs);
    report.printTable(System.out);
    assertEquals(List.of(), report.problems(), "failed jobs, different rows or fallbacks");
    for (SparkTestbed.Run r : runs) {
      assertEquals(2, r.jobs().size(), r.setup() + ": jobs " + r.jobs());
    }
    SparkTestbed.Run varys = runs.get(1);
    assertTrue(
        varys.executors().getOrDefault("readsThroughAgents", 0L) > 0,
        "no reduce task read through the agents: " + varys.executors());
    assertEquals(2, varys.agents().size(), "host agents' figures: " + varys.agents());
    for (Map<String, String> a : varys.agents()) {
      assertTrue(
          Long.parseLong(a.getOrDefault("streams", "0")) > 0,
          "an agent fetched nothing from the other host: " + a);
      assertTrue(
          Long.parseLong(a.getOrDefault("served", "0")) > 0,
          "an agent served nothing to the other host: " + a);
    }
    Map<String, SparkTestbed.Job> jobs = new java.util.HashMap<>();
    varys.jobs().forEach(j -> jobs.put(j.id(), j));
    SparkTestbed.Job large = jobs.get("1");
    SparkTestbed.Job small = jobs.get("2");
    assertTrue(
        small.submitMs() < large.endMs(),
        "the small shuffle was not submitted while the large one ran: " + jobs);
    assertTrue(
        small.endMs() < large.endMs(),
        "under varys the small shuffle did not end before the large one: " + jobs);
  }
}
