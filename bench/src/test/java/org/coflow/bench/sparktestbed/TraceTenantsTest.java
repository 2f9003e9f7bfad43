package org.coflow.bench.sparktestbed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.coflow.testbed.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace slice as the Spark testbed's jobs: who gets which coflow, with which tasks and bytes. */
class TraceTenantsTest {
  private static Workload.Coflow coflow(int id, long at, int mappers, long... reducerBytes) {
    List<Workload.Reducer> reducers = new java.util.ArrayList<>();
    for (long b : reducerBytes) {
      reducers.add(new Workload.Reducer(0, b));
    }
    return new Workload.Coflow(id, at, new int[] {0, 1}, new int[] {mappers - 1, 1}, reducers);
  }

  @Test
  void coflowsGoRoundRobinAndKeepTheirBytesWithTasksCapped() {
    Workload w =
        new Workload(
            "test",
            2,
            List.of(
                coflow(7, 0, 3, 10, 20, 30),
                coflow(8, 100, 12, 1, 2, 3, 4, 5),
                coflow(9, 200, 2, 5)));
    TraceTenants t = new TraceTenants(w, 2, 4);
    List<TraceJobsApp.Job> first = t.jobs(0);
    assertEquals(2, first.size());
    assertEquals(7, first.get(0).id());
    assertEquals(3, first.get(0).mappers());
    assertArrayEquals(new long[] {10, 20, 30}, first.get(0).reducerBytes());
    assertEquals(9, first.get(1).id());
    TraceJobsApp.Job wide = t.jobs(1).get(0);
    // 12 mappers become 4 tasks; reducer 4 folds onto task 0; no byte is lost
    assertEquals(4, wide.mappers());
    assertArrayEquals(new long[] {1 + 5, 2, 3, 4}, wide.reducerBytes());
    assertEquals(15, wide.bytes());
    assertEquals(100, wide.arrivalMs());
  }

  @Test
  void aJobLineReadsBackAsTheSameJob() {
    TraceJobsApp.Job j = new TraceJobsApp.Job(12, 3400, 5, new long[] {1, 0, 1 << 30});
    TraceJobsApp.Job back = TraceJobsApp.Job.parse(j.line());
    assertEquals(j.line(), back.line());
    assertThrows(IllegalArgumentException.class, () -> TraceJobsApp.Job.parse("12 3400 5"));
  }

  @Test
  void resultLinesBecomeJobsAndAFailureKeepsItsMessage(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("app-1.out");
    Files.write(
        out,
        List.of(
            "job 7 60 1767268800000 1767268801250 00112233aabbccdd",
            "job 9 5 FAILED org.apache.spark.SparkException: Job aborted"));
    TraceTenants t = new TraceTenants(new Workload("test", 2, List.of()), 2, 4);
    List<SparkTestbed.Job> jobs = t.results(1, out);
    assertEquals(2, jobs.size());
    assertEquals("7", jobs.get(0).id());
    assertEquals(1.25, jobs.get(0).seconds(), 1e-9);
    assertEquals("00112233aabbccdd", jobs.get(0).digest());
    assertNull(jobs.get(0).failure());
    assertEquals("org.apache.spark.SparkException: Job aborted", jobs.get(1).failure());
    assertEquals("coflow-7", t.group("7"));
  }
}
