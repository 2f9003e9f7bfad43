package org.coflow.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/coflow bench swim} end to end on a smoke scale: the first 10 jobs of FB-2009 with the
 * gaps divided by 100 run as real MapReduce jobs on a MiniMRYarnCluster through the agents, and all
 * of them succeed. Job times are not asserted (a noisy machine).
 */
class SwimBenchSmokeTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void tenJobsOfFacebook2009RunThroughTheAgents(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out.json");
    Path err = dir.resolve("err.txt");
    ProcessBuilder pb =
        new ProcessBuilder(
                ROOT.resolve("bin/coflow").toString(),
                "bench",
                "swim",
                "--jobs",
                "10",
                "--gap-divisor",
                "100",
                "--runs",
                "fair",
                "--json")
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().put("COFLOW_NO_BUILD", "1"); // the reactor built it: never a nested build
    Process p = pb.start();
    assertTrue(p.waitFor(14, TimeUnit.MINUTES), "bench swim did not finish");
    String json = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), json + Files.readString(err, StandardCharsets.UTF_8));
    assertTrue(json.contains("\"failed_jobs\":0"), json);
    assertTrue(json.contains("\"fair\":{") && json.contains("\"jobs\":10"), json);
  }
}
