package org.coflow.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code bin/coflow sim --identify}: arguments, and a small run's JSON lines. */
class SimIdentifyCommandTest extends CliHarness {
  private static final String TRACE = "data/coflow-benchmark/FB2010-1Hr-150-0.txt";

  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("sim", "--identify", "sideways", "--trace", TRACE));
    assertTrue(err().contains("--identify is normal, batch or stretched, got 'sideways'"), err());
    assertEquals(2, run("sim", "--identify", "normal", "--framework", "flink", "--trace", TRACE));
    assertTrue(err().contains("'flink'"), err());
    assertEquals(2, run("sim", "--identify", "normal", "--round", "0", "--trace", TRACE));
    assertTrue(err().contains("--round between"), err());
    assertEquals(
        2,
        run(
            "sim",
            "--identify",
            "normal",
            "--metric",
            "/nonexistent.properties",
            "--trace",
            TRACE));
    assertTrue(err().contains("/nonexistent.properties"), err());
    assertEquals(2, run("sim", "--identify", "normal", "--runs", "coda,magic", "--trace", TRACE));
    assertTrue(err().contains("unknown run 'magic'"), err());
  }

  @Test
  void runsCanBeChosenAndTheNormalisersAlwaysRun() {
    assertEquals(
        0,
        run(
            "sim",
            "--identify",
            "batch",
            "--runs",
            "coda",
            "--coflows",
            "5",
            "--json",
            "--trace",
            TRACE));
    String[] lines = out().trim().split("\n");
    assertEquals(3, lines.length, out());
    assertTrue(
        lines[0].startsWith("{\"run\":\"fair\"")
            && lines[1].startsWith("{\"run\":\"aalo\"")
            && lines[2].startsWith("{\"run\":\"coda\""),
        out());
  }

  @Test
  void printsOneJsonObjectPerRun() {
    assertEquals(
        0,
        run(
            "sim",
            "--identify",
            "normal",
            "--framework",
            "hadoop",
            "--coflows",
            "8",
            "--json",
            "--trace",
            TRACE));
    String[] lines = out().trim().split("\n");
    assertEquals(6, lines.length, out());
    String[] runs = {
      "fair", "aalo", "coda", "coda-no-late-binding", "coda-no-intra", "coda-no-both"
    };
    for (int i = 0; i < runs.length; i++) {
      assertTrue(lines[i].startsWith("{\"run\":\"" + runs[i] + "\""), lines[i]);
      assertTrue(lines[i].contains("\"coflows\":8"), lines[i]);
    }
    assertEquals(1.0, field(lines[0], "avg_vs_fair"), 1e-12);
    assertEquals(1.0, field(lines[1], "avg_vs_aalo"), 1e-12);
    double precision = field(lines[2], "precision");
    double recall = field(lines[2], "recall");
    assertTrue(precision > 0.5 && precision <= 1 && recall > 0.5 && recall <= 1, lines[2]);
    assertTrue(field(lines[2], "avg_cct_s") > 0, lines[2]);
  }

  private static double field(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":([-0-9.eE]+)").matcher(json);
    assertTrue(m.find(), key + " in " + json);
    return Double.parseDouble(m.group(1));
  }
}
