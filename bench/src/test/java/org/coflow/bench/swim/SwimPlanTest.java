package org.coflow.bench.swim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SwimPlanTest {
  private static final Path FIRST50 =
      Path.of("data/swim/FB-2009_samples_24_times_1hr_0_first50jobs.tsv");

  @Test
  void scalesBytesAndGapsAndShapesJobs() throws Exception {
    List<SwimPlan.Job> jobs = SwimPlan.plan(FIRST50, 10, 600, 100);
    assertEquals(10, jobs.size());
    // job0: gap 49 s, input 740773, shuffle 2339561, output 627471.
    SwimPlan.Job j0 = jobs.get(0);
    assertEquals("job0", j0.name());
    assertEquals(490, j0.submitMillis());
    assertEquals(Math.round(2339561 / 600.0), j0.shuffleBytes());
    assertEquals(Math.round(627471 / 600.0), j0.outputBytes());
    assertEquals(2, j0.maps(), "at least two maps");
    assertEquals(1, j0.reducers());
    // job3: shuffle 42 bytes -> raised to 1 KiB, as SWIM does; job4: shuffle 0 -> map-only.
    assertEquals(1024, jobs.get(3).shuffleBytes());
    assertEquals(0, jobs.get(4).reducers());
    assertEquals(0, jobs.get(4).shuffleBytes());
    // Submit times are the running sum of the scaled gaps: job9 at 487 s / 100.
    assertEquals(4870, jobs.get(9).submitMillis());
    // Big jobs get more tasks, within bounds.
    List<SwimPlan.Job> big = SwimPlan.plan(FIRST50, 50, 10, 1);
    assertTrue(
        big.stream().anyMatch(j -> j.reducers() == 4 && j.maps() == 8),
        "the largest jobs use 8 maps, 4 reducers");
    assertTrue(big.stream().allMatch(j -> j.maps() >= 2 && j.maps() <= 8 && j.reducers() <= 4));
  }

  @Test
  void malformedTracesAreNamed(@TempDir Path tmp) throws Exception {
    Path bad = tmp.resolve("bad.tsv");
    Files.writeString(bad, "job0\t1\t1\t100\t200\t300\njob1\t2\t1\t100\tlots\t300\n");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SwimPlan.plan(bad, 50, 1, 1));
    assertTrue(
        e.getMessage().contains("line 2") && e.getMessage().contains("shuffle bytes 'lots'"),
        e.getMessage());
    Files.writeString(bad, "a,b,c\n");
    e = assertThrows(IllegalArgumentException.class, () -> SwimPlan.plan(bad, 50, 1, 1));
    assertTrue(e.getMessage().contains("SWIM"), e.getMessage());
    Files.writeString(bad, "job0\t1\t-1\t100\t200\t300\n");
    e = assertThrows(IllegalArgumentException.class, () -> SwimPlan.plan(bad, 50, 1, 1));
    assertTrue(e.getMessage().contains("gap '-1'"), e.getMessage());
    Files.writeString(bad, "");
    e = assertThrows(IllegalArgumentException.class, () -> SwimPlan.plan(bad, 50, 1, 1));
    assertTrue(e.getMessage().contains("no jobs"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SwimPlan.plan(FIRST50, 50, 0.5, 1));
    assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
  }
}
