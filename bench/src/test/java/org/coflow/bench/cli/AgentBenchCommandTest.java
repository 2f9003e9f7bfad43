package org.coflow.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/coflow bench agent} on a small file: both paths really move and verify the bytes (a
 * failed fetch makes the command fail), and the JSON carries the documented figures. The figures
 * themselves are not asserted: this machine is too noisy for a timed test.
 */
class AgentBenchCommandTest extends CliHarness {
  @Test
  void jsonHasTheRatiosAndTheMeasurementsTheyComeFrom() {
    assertEquals(
        0,
        run(
            "bench",
            "agent",
            "--size",
            "32m",
            "--blocks",
            "8",
            "--clients",
            "2",
            "--runs",
            "1",
            "--json"),
        err());
    String json = out().trim();
    for (String field :
        List.of(
            "throughput_ratio",
            "cpu_per_gb_ratio",
            "cpu_per_gb_ratio_with_jit",
            "courier_seconds",
            "baseline_seconds",
            "courier_cpu_seconds",
            "baseline_cpu_seconds",
            "courier_jit_cpu_seconds",
            "warmup_rounds")) {
      assertTrue(number(json, field) >= 0, field + " in " + json);
    }
    assertEquals(32 << 20, number(json, "bytes"));
    assertTrue(number(json, "throughput_ratio") > 0 && number(json, "courier_seconds") > 0, json);
    // Ratios of real measurements: positive and finite even where a run is short.
    for (String ratio : List.of("cpu_per_gb_ratio", "cpu_per_gb_ratio_with_jit")) {
      double r = number(json, ratio);
      assertTrue(r > 0 && r < 100, ratio + " in " + json);
    }
    // One round: the median of the rounds' ratios is that round's ratio, the ratio of the medians.
    assertEquals(
        number(json, "throughput_ratio_of_medians"), number(json, "throughput_ratio"), 1e-6, json);
    assertEquals(
        number(json, "cpu_per_gb_ratio_of_medians"), number(json, "cpu_per_gb_ratio"), 1e-6, json);
    double warmup = number(json, "warmup_rounds");
    assertTrue(warmup >= 3 && warmup <= 12, json);
  }

  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "agent", "--size", "huge"));
    assertTrue(err().contains("--size"), err());
    assertEquals(2, run("bench", "agent", "--size", "4m", "--blocks", "2", "--clients", "3"));
    assertTrue(err().contains("blocks >= clients"), err());
    assertEquals(2, run("bench", "agent", "--runs", "0"));
    assertTrue(err().contains("--runs must be a positive integer, got '0'"), err());
  }

  private static double number(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.eE+-]+)").matcher(json);
    assertTrue(m.find(), field + " missing from " + json);
    return Double.parseDouble(m.group(1));
  }
}
