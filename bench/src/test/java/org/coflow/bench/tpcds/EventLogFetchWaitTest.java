package org.coflow.bench.tpcds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.coflow.bench.tpcds.EventLogFetchWait.Reads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event-log reader of {@code bench tpcds}: shuffle reads summed per job group from lines laid
 * out as Spark's JsonProtocol writes them (3.5 and 4.x).
 */
class EventLogFetchWaitTest {
  private static final List<String> LOG =
      List.of(
          "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.9\"}",
          "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"TpcdsBenchApp\","
              + "\"App ID\":\"app-20260101120000-0000\",\"Timestamp\":1767268800000,"
              + "\"User\":\"root\"}",
          jobStart(0, "q17-warmup", 0, 1),
          taskEnd(1, 5, 1, 100),
          // AQE: a shuffle map stage runs as a job of its own, then the result job lists it again
          jobStart(1, "q17-stock", 2, 3),
          taskEnd(2, 0, 0, 0),
          taskEnd(3, 40, 3, 3000),
          taskEnd(3, 60, 4, 4000),
          jobStart(2, "q17-stock", 3, 4),
          taskEnd(4, 10, 2, 500),
          // a later job of another group that reuses stage 3: its tasks stay with stage 3's owner
          jobStart(3, "q17-courier", 3, 5),
          taskEnd(3, 7, 1, 70),
          taskEnd(5, 25, 6, 6000),
          // a job outside any group
          "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":4,\"Submission Time\":1767268801000,"
              + "\"Stage Infos\":[],\"Stage IDs\":[6],\"Properties\":{\"spark.sql.execution.id\":"
              + "\"9\"}}",
          taskEnd(6, 999, 9, 9999),
          // a failed attempt without metrics (Spark 4 writes no "Task Metrics" then)
          "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":5,\"Stage Attempt ID\":0,"
              + "\"Task Type\":\"ResultTask\",\"Task End Reason\":{\"Reason\":\"TaskKilled\","
              + "\"Kill Reason\":\"another attempt succeeded\",\"Accumulator Updates\":[]},"
              + "\"Task Info\":{\"Task ID\":99,\"Accumulables\":[]}}",
          "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":3,\"Completion Time\":1767268802000,"
              + "\"Job Result\":{\"Result\":\"JobSucceeded\"}}",
          // a log still being written: its last line cut short
          "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":5,\"Stage Attempt ID\":0,\"Task Ty");

  @Test
  void aGroupSpansFromItsFirstJobsSubmissionToItsLastJobsEndOnceAllItsJobsEnded(@TempDir Path dir)
      throws IOException {
    Files.write(dir.resolve("app-20260101120000-0000"), LOG);
    Map<String, EventLogFetchWait.Span> spans = EventLogFetchWait.spans(dir);
    // q17-courier's one job ended; q17-stock's and q17-warmup's never did (a log cut short).
    assertEquals(
        Map.of("q17-courier", new EventLogFetchWait.Span(1767268800500L, 1767268802000L)), spans);
    assertEquals(1500, spans.get("q17-courier").millis());
  }

  @Test
  void sumsEachJobGroupsTasksByTheJobThatOwnsTheirStage() {
    Map<String, Reads> reads = EventLogFetchWait.parse(LOG);
    // each task: 3 ms of garbage collection, 12 ms of deserialisation
    assertEquals(new Reads(5, 1, 100, 1, 3, 12), reads.get("q17-warmup"));
    assertEquals(
        new Reads(40 + 60 + 10 + 7, 3 + 4 + 2 + 1, 7570, 5, 15, 60), reads.get("q17-stock"));
    // one of q17-courier's two tasks is the killed attempt, which carries no metrics
    assertEquals(new Reads(25, 6, 6000, 2, 3, 12), reads.get("q17-courier"));
    assertEquals(3, reads.size(), reads.toString());
  }

  @Test
  void aBrokenLineBeforeTheLastIsAnError() {
    List<String> log =
        List.of(LOG.get(2), "{\"Event\":\"SparkListenerTaskEnd\",\"Stage", LOG.get(3));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> EventLogFetchWait.parse(log));
    assertTrue(e.getMessage().startsWith("line 2 is not a JSON object"), e.getMessage());
  }

  @Test
  void readsTheLogSparkWroteIntoTheDirectory(@TempDir Path dir) throws IOException {
    Path events = dir.resolve("events");
    Files.createDirectories(events);
    Files.writeString(events.resolve("app-20250101000000-0000"), "an earlier run's log\n");
    List<String> conf = EventLogFetchWait.sparkConf(events);
    assertTrue(conf.contains("spark.eventLog.enabled=true"), conf.toString());
    assertTrue(conf.contains("spark.eventLog.compress=false"), conf.toString());
    assertTrue(conf.contains("spark.eventLog.dir=" + events.toUri()), conf.toString());
    try (var s = Files.list(events)) {
      assertFalse(s.findAny().isPresent(), "the earlier run's log is gone");
    }
    IOException none = assertThrows(IOException.class, () -> EventLogFetchWait.readDir(events));
    assertTrue(none.getMessage().startsWith("no Spark event log in "), none.getMessage());

    Files.write(events.resolve("app-20260101120000-0000.inprogress"), LOG);
    assertEquals(25, EventLogFetchWait.readDir(events).get("q17-courier").fetchWaitMs());
  }

  @Test
  void aFailureIsOneLineOfTheResultFile() {
    String line =
        TpcdsBenchApp.oneLine(
            new IllegalStateException(
                "Job aborted due to stage failure: Task 1 in stage 3.0 failed\tnow\n"
                    + "== Physical Plan ==\n..."));
    assertEquals(
        "IllegalStateException: Job aborted due to stage failure: Task 1 in stage 3.0 failed now",
        line);
    assertEquals("NullPointerException", TpcdsBenchApp.oneLine(new NullPointerException()));
    assertEquals(300, TpcdsBenchApp.oneLine(new RuntimeException("x".repeat(1000))).length());
    assertEquals("q17-courier", TpcdsBenchApp.jobGroup("q17", "courier"));
  }

  /** A job start as Spark writes it, stage infos (with their own "Stage ID"s) and all. */
  private static String jobStart(int job, String group, int... stages) {
    StringBuilder infos = new StringBuilder();
    StringBuilder ids = new StringBuilder();
    for (int s : stages) {
      infos
          .append(infos.length() > 0 ? "," : "")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Stage Name\":\"collectAsList at"
                      + " TpcdsBenchApp.java:215\",\"Number of Tasks\":4,\"RDD Info\":[],"
                      + "\"Parent IDs\":[],\"Details\":\"org.apache.spark.sql.Dataset"
                      + ".collectAsList(Dataset.scala:3450)\\n\\tat \\\"x\\\" \\u00e9\","
                      + "\"Resource Profile Id\":0,\"Shuffle Push Enabled\":false,"
                      + "\"Shuffle Push Mergers Count\":0,\"Accumulables\":[]}",
                  s));
      ids.append(ids.length() > 0 ? "," : "").append(s);
    }
    return String.format(
        Locale.ROOT,
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":%d,\"Submission Time\":1767268800500,"
            + "\"Stage Infos\":[%s],\"Stage IDs\":[%s],\"Properties\":{"
            + "\"spark.jobGroup.id\":\"%s\",\"spark.job.description\":\"q17\","
            + "\"spark.job.interruptOnCancel\":\"false\",\"spark.shuffle.courier.enabled\":"
            + "\"false\",\"spark.sql.execution.id\":\"3\"}}",
        job,
        infos,
        ids,
        group);
  }

  /**
   * A successful task's end as Spark writes it; its accumulables hold other figures than its task
   * metrics, so a reader that took them would be caught.
   */
  private static String taskEnd(int stage, long waitMs, long remoteBlocks, long remoteBytes) {
    return String.format(
        Locale.ROOT,
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%d,\"Stage Attempt ID\":0,"
            + "\"Task Type\":\"ResultTask\",\"Task End Reason\":{\"Reason\":\"Success\"},"
            + "\"Task Info\":{\"Task ID\":12,\"Index\":0,\"Attempt\":0,\"Partition ID\":0,"
            + "\"Launch Time\":1767268800600,\"Executor ID\":\"1\",\"Host\":\"127.0.0.1\","
            + "\"Locality\":\"NODE_LOCAL\",\"Speculative\":false,\"Getting Result Time\":0,"
            + "\"Finish Time\":1767268800900,\"Failed\":false,\"Killed\":false,\"Accumulables\":["
            + "{\"ID\":75,\"Name\":\"internal.metrics.shuffle.read.fetchWaitTime\",\"Update\":1234,"
            + "\"Value\":5678,\"Internal\":true,\"Count Failed Values\":true}]},"
            + "\"Task Executor Metrics\":{\"JVMHeapMemory\":0,\"JVMOffHeapMemory\":0},"
            + "\"Task Metrics\":{\"Executor Deserialize Time\":12,"
            + "\"Executor Deserialize CPU Time\":9000000,\"Executor Run Time\":700,"
            + "\"Executor CPU Time\":300000000,\"Peak Execution Memory\":0,\"Result Size\":4000,"
            + "\"JVM GC Time\":3,\"Result Serialization Time\":0,\"Memory Bytes Spilled\":0,"
            + "\"Disk Bytes Spilled\":0,\"Shuffle Read Metrics\":{\"Remote Blocks Fetched\":%d,"
            + "\"Local Blocks Fetched\":2,\"Fetch Wait Time\":%d,\"Remote Bytes Read\":%d,"
            + "\"Remote Bytes Read To Disk\":0,\"Local Bytes Read\":2000,"
            + "\"Total Records Read\":100,\"Remote Requests Duration\":35,"
            + "\"Shuffle Push Read Metrics\":{\"Corrupt Merged Block Chunks\":0,"
            + "\"Merged Fetch Fallback Count\":0,\"Merged Remote Blocks Fetched\":0,"
            + "\"Merged Local Blocks Fetched\":0,\"Merged Remote Chunks Fetched\":0,"
            + "\"Merged Local Chunks Fetched\":0,\"Merged Remote Bytes Read\":0,"
            + "\"Merged Local Bytes Read\":0,\"Merged Remote Requests Duration\":0}},"
            + "\"Shuffle Write Metrics\":{\"Shuffle Bytes Written\":0,\"Shuffle Write Time\":0,"
            + "\"Shuffle Records Written\":0},\"Input Metrics\":{\"Bytes Read\":0,"
            + "\"Records Read\":0},\"Output Metrics\":{\"Bytes Written\":0,"
            + "\"Records Written\":0},\"Updated Blocks\":[]}}",
        stage,
        remoteBlocks,
        waitMs,
        remoteBytes);
  }
}
