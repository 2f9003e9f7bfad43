package org.coflow.testbed.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@code bin/coflow bench testbed}'s arguments; the testbed itself runs in {@code TestbedTest}.
 * Every case here is refused before any namespace is made.
 */
class TestbedBenchCommandTest extends CliHarness {
  private static final String TRACE = "../sim/data/coflow-benchmark/FB2010-1Hr-150-0.txt";

  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "testbed", "--courier", "maybe"));
    assertTrue(err().contains("--courier must be on, off or both, got 'maybe'"), err());
    assertEquals(2, run("bench", "testbed", "--policies", "fair,fastest"));
    assertTrue(err().contains("unknown policy 'fastest'"), err());
    assertEquals(2, run("bench", "testbed", "--max-num", "4,lots"));
    assertTrue(err().contains("got 'lots'"), err());
    assertEquals(2, run("bench", "testbed", "--rate", "fast"));
    assertTrue(err().contains("--rate 'fast'"), err());
    assertEquals(2, run("bench", "testbed", "--hosts", "0"));
    assertTrue(err().contains("--hosts must be at least 1"), err());
    assertEquals(2, run("bench", "testbed", "--hosts", "1"));
    assertTrue(err().contains("--hosts 1: use 2 to 60"), err());
    assertEquals(2, run("bench", "testbed", "--trace", TRACE, "--first", "520", "--coflows", "10"));
    assertTrue(err().contains("coflows 520 to 529") && err().contains("has 526"), err());
    assertEquals(2, run("bench", "testbed", "--trace", TRACE, "--buffer", "1k"));
    assertTrue(err().contains("buffer of 1024 bytes"), err());
    assertEquals(2, run("bench", "testbed", "--trace", TRACE, "--tcp", "Reno!"));
    assertTrue(err().contains("congestion control 'Reno!'"), err());
    assertEquals(2, run("bench", "testbed", "--trace", TRACE, "--rto-min", "soon"));
    assertTrue(err().contains("--rto-min 'soon'"), err());
    assertEquals(1, run("bench", "testbed", "--trace", "/nonexistent/trace.txt"));
    assertTrue(err().contains("cannot read the trace /nonexistent/trace.txt"), err());
  }

  @Test
  void helpNamesTheSetupsAndDefaults() {
    assertEquals(0, run("bench", "testbed", "--help"));
    assertTrue(
        out().contains("unmerged+P") && out().contains("--buffer 128k") && out().contains("reno"),
        out());
  }
}
