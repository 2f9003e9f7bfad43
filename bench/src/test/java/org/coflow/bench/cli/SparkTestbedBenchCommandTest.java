package org.coflow.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@code bin/coflow bench spark-testbed}'s arguments; the testbed itself runs in the integration
 * tests' {@code SparkTestbedTest}. Every case here is refused before any namespace or Spark.
 */
class SparkTestbedBenchCommandTest extends CliHarness {
  private static final String TRACE = "../sim/data/coflow-benchmark/FB2010-1Hr-150-0.txt";

  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "spark-testbed", "--setups", "stock,fastest"));
    assertTrue(err().contains("unknown setup 'fastest'") && err().contains("stock-ess"), err());
    assertEquals(2, run("bench", "spark-testbed", "--workload", "terasort"));
    assertTrue(err().contains("--workload 'terasort': use trace or tpcds"), err());
    assertEquals(2, run("bench", "spark-testbed", "--hosts", "1"));
    assertTrue(err().contains("--hosts 1: use 2 to 16"), err());
    assertEquals(2, run("bench", "spark-testbed", "--spark", "2.4"));
    assertTrue(err().contains("--spark 2.4: not a Spark this project builds for"), err());
    assertEquals(2, run("bench", "spark-testbed", "--rate", "fast"));
    assertTrue(err().contains("--rate 'fast'"), err());
    assertEquals(2, run("bench", "spark-testbed", "--trace", TRACE, "--executor-memory", "1m"));
    assertTrue(err().contains("--executor-memory 1m: use 256m to 8g"), err());
    assertEquals(2, run("bench", "spark-testbed", "--trace", TRACE, "--apps", "0"));
    assertTrue(err().contains("--apps must be at least 1"), err());
    assertEquals(2, run("bench", "spark-testbed", "--trace", TRACE, "--executor-cores", "64"));
    assertTrue(err().contains("--executor-cores 64: use 1 to 32"), err());
    assertEquals(2, run("bench", "spark-testbed", "--trace", TRACE, "--spark-conf", "verbose"));
    assertTrue(err().contains("--spark-conf 'verbose': use spark.KEY=VALUE"), err());
    assertEquals(1, run("bench", "spark-testbed", "--trace", "/nonexistent/trace.txt"));
    assertTrue(err().contains("cannot read the trace /nonexistent/trace.txt"), err());
  }

  @Test
  void helpNamesTheSetupsAndWorkloads() {
    assertEquals(0, run("bench", "spark-testbed", "--help"));
    assertTrue(
        out().contains("stock-ess")
            && out().contains("--workload trace|tpcds")
            && out().contains("4 (4.3.0)"),
        out());
  }
}
