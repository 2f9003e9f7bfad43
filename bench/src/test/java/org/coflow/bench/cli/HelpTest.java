package org.coflow.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The launcher's help and the benchmarks' list, as {@code bin/coflow} prints them. */
class HelpTest extends CliHarness {
  @Test
  void everyCommandHasHelp() {
    for (String[] cmd :
        new String[][] {{"--help"}, {"bench", "--help"}, {"docs", "--help"}, {"sim", "--help"}}) {
      out.reset();
      assertEquals(0, run(cmd), String.join(" ", cmd));
      assertTrue(out().startsWith("Usage: coflow"), out());
    }
  }

  @Test
  void anUnknownCommandIsNamed() {
    assertEquals(2, run("launch"));
    assertTrue(err().contains("unknown command 'launch'"), err());
  }

  @Test
  void anUnknownBenchmarkIsNamedWithTheList() {
    assertEquals(2, run("bench", "frobnicate"));
    assertTrue(err().contains("unknown benchmark 'frobnicate'") && err().contains("sim,"), err());
    assertTrue(err().contains("fuzz, load"), err());
    assertEquals(0, run("bench", "--help"));
    for (String b : new String[] {"sim", "master", "fuzz", "load", "tpcds", "spark-testbed"}) {
      assertTrue(out().contains("coflow bench " + b + " ["), b + " in " + out());
    }
  }
}
