package org.coflow.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/coflow bench swim}'s arguments and figures; the replay itself runs in
 * integration-tests ({@code SwimBenchSmokeTest}).
 */
class SwimBenchCommandTest extends CliHarness {
  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "swim", "--jobs", "0"));
    assertTrue(err().contains("--jobs 0 is out of range"), err());
    assertEquals(2, run("bench", "swim", "--runs", "stock,best"));
    assertTrue(err().contains("'best' is not a run"), err());
    assertEquals(2, run("bench", "swim", "--trace", "/nonexistent/x.tsv"));
    assertTrue(err().contains("--trace /nonexistent/x.tsv is not a file"), err());
    assertEquals(2, run("bench", "swim", "--bytes-divisor", "0.1"));
    assertTrue(err().contains("at least 1"), err());
    assertEquals(2, run("bench", "swim", "--link-rate", "fast"));
    assertTrue(err().contains("fast"), err());
  }

  @Test
  void helpNamesTheDefaults() {
    assertEquals(0, run("bench", "swim", "--help"));
    assertTrue(out().contains("--gap-divisor") && out().contains("stock,fair,policy"), out());
  }

  @Test
  void ratiosComeFromTheReplaysLines() {
    Map<String, List<SwimBenchCommand.Result>> results = new LinkedHashMap<>();
    results.put(
        "stock",
        SwimBenchCommand.parse(
            List.of("job0\t0\t10000\ttrue\t100\t1", "job1\t5\t20000\ttrue\t0\t0")));
    results.put(
        "fair",
        SwimBenchCommand.parse(
            List.of("job0\t0\t12000\ttrue\t100\t1", "job1\t5\t18000\ttrue\t0\t0")));
    results.put(
        "policy",
        SwimBenchCommand.parse(
            List.of("job0\t0\t6000\ttrue\t100\t1", "job1\t5\t18000\tfalse\t0\t0")));
    SwimBenchCommand.Report r =
        new SwimBenchCommand.Report("t.tsv", 2, 600, 100, 2.5e6, "aalo", results);
    assertEquals(12.0 / 15.0, r.ratio("policy", "fair", false), 1e-9);
    assertEquals(15.0 / 15.0, r.ratio("fair", "stock", false), 1e-9);
    assertEquals(1, r.failures());
    assertTrue(r.json().contains("\"policy_over_fair_avg\":0.8"), r.json());
    assertTrue(r.json().contains("\"failed_jobs\":1"), r.json());
    assertTrue(r.table().contains("policy/fair: avg 0.800"), r.table());
    assertEquals(12.0, r.stats("fair", true).avg(), 1e-9, "jobs with a shuffle only");
  }
}
