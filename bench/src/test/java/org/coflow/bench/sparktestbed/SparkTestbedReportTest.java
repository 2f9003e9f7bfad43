package org.coflow.bench.sparktestbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.coflow.testbed.Network;
import org.coflow.testbed.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Spark testbed's figures: ratios round by round, halves by bytes, wrong results named. */
class SparkTestbedReportTest {
  private static final HostSampler.Summary NET =
      new HostSampler.Summary(0.8, 0.5, 10, 1, 4, 1000, 30);

  private static SparkTestbed.Job job(String id, long bytes, double seconds, String digest) {
    return new SparkTestbed.Job(id, 0, bytes, 1000, seconds, 0.1, 0.2, 0.3, digest, null);
  }

  private static SparkTestbed.Run run(
      String setup, int round, Map<String, Long> executors, SparkTestbed.Job... jobs) {
    return new SparkTestbed.Run(
        new SparkTestbed.Setup(setup),
        round,
        List.of(jobs),
        jobs.length,
        NET,
        executors,
        List.of(),
        List.of());
  }

  private static SparkTestbed.Plan plan() {
    return new SparkTestbed.Plan(
        2,
        new Network.Link(30e6, 128 << 10, "reno", 0, 0),
        "3.5.9",
        new TraceTenants(new Workload("test", 2, List.of()), 2, 4),
        List.of(new SparkTestbed.Setup("stock"), new SparkTestbed.Setup("varys")),
        2,
        1,
        512,
        List.of(),
        0,
        5,
        List.of("bin/coflow"),
        Path.of("target/unused"));
  }

  @Test
  void ratiosAreTakenRoundByRoundAndSmallJobsAreTheBottomHalfByBytes(@TempDir Path dir)
      throws Exception {
    List<SparkTestbed.Run> runs =
        List.of(
            run("stock", 1, Map.of(), job("a", 100, 2, "x"), job("b", 1000, 4, "y")),
            run("varys", 1, Map.of("fallbacks", 0L), job("a", 100, 1, "x"), job("b", 1000, 5, "y")),
            run("stock", 2, Map.of(), job("a", 100, 4, "x"), job("b", 1000, 8, "y")),
            run(
                "varys",
                2,
                Map.of("fallbacks", 0L),
                job("a", 100, 2, "x"),
                job("b", 1000, 10, "y")));
    SparkTestbedReport r = new SparkTestbedReport(plan(), runs);
    // round 1: (1 + 5) / (2 + 4) = 1.0; round 2: (2 + 10) / (4 + 8) = 1.0
    assertEquals(1.0, r.avgRatio("varys"), 1e-9);
    // the small half is job a: 1/2 and 2/4
    assertEquals(0.5, r.smallRatio("varys"), 1e-9);
    assertEquals(1.0, r.avgRatio("stock"), 1e-9);
    assertEquals(List.of(), r.problems());
    assertEquals(0, r.wrongJobs());
    r.write(dir);
    List<String> csv = Files.readAllLines(dir.resolve("jobs.csv"));
    assertEquals(9, csv.size());
    assertTrue(
        csv.contains("varys,2,0,a,100,true,2.000,0.100,0.200,0.300,x,true,"), csv.toString());
    assertTrue(Files.size(dir.resolve("job-cdf.png")) > 0);
    assertTrue(Files.readString(dir.resolve("summary.json")).contains("\"small_ratio_to_stock\""));
  }

  @Test
  void aDifferentResultAFailureAndAFallbackAreProblems() {
    List<SparkTestbed.Run> runs =
        List.of(
            run("stock", 1, Map.of(), job("a", 100, 2, "x"), job("b", 1000, 4, "y")),
            run(
                "varys",
                1,
                Map.of("fallbacks", 3L),
                job("a", 100, 1, "z"),
                new SparkTestbed.Job("b", 0, 1000, 0, Double.NaN, 0, 0, 0, null, "Job aborted")));
    SparkTestbedReport r = new SparkTestbedReport(plan(), runs);
    assertEquals(2, r.wrongJobs());
    List<String> p = r.problems();
    assertEquals(3, p.size(), p.toString());
    assertTrue(p.get(0).contains("varys round 1: job a returned z, not x"), p.toString());
    assertTrue(p.get(1).contains("job b failed: Job aborted"), p.toString());
    assertTrue(p.get(2).contains("3 reduce tasks fell back to Spark's fetch"), p.toString());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    r.printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(table.contains("problems:") && table.contains(" 0/2"), table);
  }

  @Test
  void jobsOfAnApplicationThatDiedCountAsNotOk() {
    // Two jobs submitted in the varys run, one application's worth of results came back.
    SparkTestbed.Run lost =
        new SparkTestbed.Run(
            new SparkTestbed.Setup("varys"),
            1,
            List.of(job("a", 100, 1, "x")),
            2,
            NET,
            Map.of(),
            List.of(),
            List.of("application 1 wrote no results"));
    List<SparkTestbed.Run> runs =
        List.of(run("stock", 1, Map.of(), job("a", 100, 1, "x"), job("b", 900, 3, "y")), lost);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new SparkTestbedReport(plan(), runs)
        .printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(table.contains(" 1/2\n") || table.contains(" 1/2\r\n"), table);
  }
}
