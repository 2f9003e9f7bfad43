package org.coflow.it.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/coflow bench tpcds} end to end at a tiny scale: the launcher generates the data, runs
 * the real spark-submit with our jar, times two queries with Spark's fetch and through the agents,
 * and both gave the same rows. The ratio itself is not asserted (a noisy machine, tiny queries).
 */
class TpcdsBenchSmokeTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void singleStreamRunsThroughTheLauncher(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out.json");
    Path err = dir.resolve("err.txt");
    ProcessBuilder pb =
        new ProcessBuilder(
                ROOT.resolve("bin/coflow").toString(),
                "bench",
                "tpcds",
                "--scale",
                "0.01",
                "--only",
                "single",
                "--queries",
                "q3,q42",
                "--data",
                dir.resolve("data").toString(),
                "--json")
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().put("COFLOW_NO_BUILD", "1"); // the reactor built it: never a nested build
    Process p = pb.start();
    assertTrue(p.waitFor(25, TimeUnit.MINUTES), "bench tpcds did not finish");
    String json = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), json + Files.readString(err, StandardCharsets.UTF_8));
    assertTrue(json.contains("\"rows_equal\":true"), json);
    Matcher m = Pattern.compile("\"single_time_ratio\":([0-9.eE+-]+)").matcher(json);
    assertTrue(m.find(), json);
    double ratio = Double.parseDouble(m.group(1));
    assertTrue(ratio > 0 && ratio < 100, json);
    assertTrue(json.contains("\"q42\":{\"stock_s\":"), json);
  }
}
