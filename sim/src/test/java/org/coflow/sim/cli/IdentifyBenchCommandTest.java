package org.coflow.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code bin/coflow bench identify}: arguments, and a small run's JSON. */
class IdentifyBenchCommandTest extends CliHarness {
  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "identify", "--framework", "flink"));
    assertTrue(err().contains("'flink'"), err());
    assertEquals(2, run("bench", "identify", "--flows", "0"));
    assertTrue(err().contains("--flows 0 is out of range"), err());
    assertEquals(2, run("bench", "identify", "--eps", "1", "--tau", "2"));
    assertTrue(err().contains("--tau <= --eps"), err());
    assertEquals(2, run("bench", "identify", "--trace", "/nonexistent.txt"));
    assertTrue(err().contains("/nonexistent.txt is not a file"), err());
  }

  @Test
  void printsOneJsonObjectPerAlgorithm() {
    assertEquals(
        0,
        run(
            "bench",
            "identify",
            "--flows",
            "2000",
            "--framework",
            "mixed",
            "--dbscan-rounds",
            "1",
            "--json",
            "--trace",
            "data/coflow-benchmark/FB2010-1Hr-150-0.txt"));
    String[] lines = out().trim().split("\n");
    assertEquals(5, lines.length, out());
    assertTrue(lines[0].startsWith("{\"algorithm\":\"coda\",\"flows\":2000"), lines[0]);
    assertTrue(
        out().contains("\"algorithm\":\"dbscan\"") && out().contains("\"algorithm\":\"r-dbscan\""),
        out());
    assertTrue(
        lines[0].contains("\"precision\":")
            && lines[0].contains("\"recall\":")
            && lines[0].contains("\"round_ms\":"));
  }
}
