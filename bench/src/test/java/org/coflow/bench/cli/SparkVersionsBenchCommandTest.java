package org.coflow.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --spark} / {@code --versions} values and the verdict of a version's run. The runs
 * themselves are real spark-submits in the integration tests ({@code SparkSubmitTest}, on 3.5.9 and
 * on 4.3.0 and 4.1.4).
 */
class SparkVersionsBenchCommandTest extends CliHarness {
  @Test
  void linesNameTheirNewestReleaseAndExactVersionsStay() {
    assertEquals("3.5.9", SparkSubmit.pysparkVersion("3.5"));
    assertEquals("4.3.0", SparkSubmit.pysparkVersion("4"));
    assertEquals("4.1.4", SparkSubmit.pysparkVersion("4.1"));
    assertEquals("4.0.2", SparkSubmit.pysparkVersion("4.0.2"));
    assertTrue(SparkSubmit.isSpark4("4.2.1"));
    for (String bad : List.of("3.4.1", "4.4.0", "5", "4.x", "", "3.5.9; rm -rf /")) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> SparkSubmit.pysparkVersion(bad));
      assertTrue(e.getMessage().contains("--spark " + bad + ":"), e.getMessage());
    }
  }

  @Test
  void badVersionsAreNamedBeforeAnythingRuns() {
    assertEquals(2, run("bench", "spark-versions", "--versions", "3.5,2.4.8"));
    assertTrue(err().contains("--versions '2.4.8': not a Spark this project builds for"), err());
    assertEquals(2, run("demo", "--spark", "4.7"));
    assertTrue(err().contains("coflow demo: --spark 4.7"), err());
    assertEquals(2, run("bench", "tpcds", "--spark", "three"));
    assertTrue(err().contains("coflow bench tpcds: --spark three"), err());
  }

  @Test
  void helpNamesTheDefaultVersions() {
    assertEquals(0, run("bench", "spark-versions", "--help"));
    assertTrue(out().contains(SparkVersionsBenchCommand.DEFAULT_VERSIONS), out());
  }

  private static final Map<String, String> GOOD =
      Map.of(
          "spark", "4.3.0",
          "courier_digest", "abc",
          "stock_digest", "abc",
          "w0", "220",
          "w910", "219",
          "rows", "100000",
          "bytes", "6400000",
          "sql_groups", "97");

  private static Map<String, Long> executor(long reads, long peerBytes, long fallbacks) {
    return Map.of(
        "readsThroughAgents", reads, "bytesFetchedFromPeers", peerBytes, "fallbacks", fallbacks);
  }

  private static SparkDifferentialJob.Outcome outcome(
      Map<String, String> result, Map<String, Map<String, Long>> metrics) {
    return new SparkDifferentialJob.Outcome("4.3.0", "--jars", 30, null, result, metrics);
  }

  @Test
  void aVersionPassesOnlyWithEqualRowsAndBothExecutorsReadingThroughAgents() {
    Map<String, Map<String, Long>> fine =
        Map.of("0", executor(11, 2_000_000, 0), "1", executor(11, 1_400_000, 0));
    SparkDifferentialJob.Outcome ok = outcome(GOOD, fine);
    assertNull(ok.failure());
    assertEquals(3_400_000, ok.total("bytesFetchedFromPeers"));
    assertTrue(SparkVersionsBenchCommand.table(List.of(ok)).contains("PASS"));

    Map<String, String> differ = new java.util.HashMap<>(GOOD);
    differ.put("stock_digest", "abd");
    assertTrue(outcome(differ, fine).failure().startsWith("results differ"));
    Map<String, String> wrongSpark = new java.util.HashMap<>(GOOD);
    wrongSpark.put("spark", "3.5.9");
    assertTrue(outcome(wrongSpark, fine).failure().contains("ran on Spark 3.5.9"));
    assertTrue(
        outcome(GOOD, Map.of("0", executor(11, 5, 0), "1", executor(11, 5, 2)))
            .failure()
            .contains("executor 1 fell back"));
    assertTrue(
        outcome(GOOD, Map.of("0", executor(11, 5, 0), "1", executor(0, 0, 0)))
            .failure()
            .contains("executor 1 read nothing through its agent"));
    assertTrue(
        outcome(GOOD, Map.of("0", executor(11, 5, 0), "1", executor(3, 0, 0)))
            .failure()
            .contains("no bytes from the other executor's agent"));
    // A third executor means one was lost and relaunched.
    assertTrue(
        outcome(GOOD, Map.of("0", fine.get("0"), "1", fine.get("1"), "2", fine.get("1")))
            .failure()
            .contains("an executor was lost"));
    SparkDifferentialJob.Outcome failed =
        new SparkDifferentialJob.Outcome(
            "4.0.5", "--jars", 3, "spark-submit failed; see x.log", Map.of(), Map.of());
    String table = SparkVersionsBenchCommand.table(List.of(ok, failed));
    assertTrue(table.contains("FAIL: spark-submit failed; see x.log"), table);
    assertTrue(table.contains("1 of 2 versions pass"), table);
    assertTrue(SparkVersionsBenchCommand.json(List.of(ok, failed)).contains("\"all_pass\":false"));
  }
}
