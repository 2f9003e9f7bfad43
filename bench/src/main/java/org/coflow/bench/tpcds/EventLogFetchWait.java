package org.coflow.bench.tpcds;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Shuffle reads per job group, summed over the tasks of a Spark application's event log: how long
 * its tasks waited on shuffle fetches, and how many blocks and bytes they fetched from other
 * executors; and when each group's jobs ran ({@link #spans}).
 *
 * <p>The log is read as Spark's {@code JsonProtocol} writes it, one JSON event a line, with the
 * same keys in 3.5 and 4.x: a {@code SparkListenerJobStart} carries {@code "Stage IDs"} and {@code
 * "Properties"} (the submitting thread's local properties, {@code "spark.jobGroup.id"} among them);
 * a {@code SparkListenerTaskEnd} carries {@code "Stage ID"} and {@code "Task Metrics"} → {@code
 * "Shuffle Read Metrics"} → {@code "Fetch Wait Time"} (ms), {@code "Remote Blocks Fetched"}, {@code
 * "Remote Bytes Read"}. A task counts for the group of the job that owns its stage: the first job
 * that lists it (Spark's {@code firstJobId}); a later job that reuses the stage lists it too, as
 * skipped.
 */
public final class EventLogFetchWait {
  private static final String JOB_GROUP = "spark.jobGroup.id";

  private EventLogFetchWait() {}

  /**
   * One job group's shuffle reads, summed over its tasks, with the tasks' garbage collection and
   * deserialisation (which includes fetching the task's broadcast binary) for comparison.
   */
  public record Reads(
      long fetchWaitMs,
      long remoteBlocks,
      long remoteBytes,
      int tasks,
      long gcMs,
      long deserializeMs) {
    public static final Reads NONE = new Reads(0, 0, 0, 0);

    /** Reads without the tasks' other times. */
    public Reads(long fetchWaitMs, long remoteBlocks, long remoteBytes, int tasks) {
      this(fetchWaitMs, remoteBlocks, remoteBytes, tasks, 0, 0);
    }

    /** The sum of two groups' reads. */
    public Reads plus(Reads o) {
      return new Reads(
          fetchWaitMs + o.fetchWaitMs,
          remoteBlocks + o.remoteBlocks,
          remoteBytes + o.remoteBytes,
          tasks + o.tasks,
          gcMs + o.gcMs,
          deserializeMs + o.deserializeMs);
    }
  }

  /**
   * The {@code spark-submit} settings that make an application write the log this class reads into
   * {@code dir}, uncompressed (Spark 4 compresses by default); {@code dir} is created, or emptied
   * of an earlier run's logs.
   */
  public static List<String> sparkConf(Path dir) throws IOException {
    Files.createDirectories(dir);
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        if (!p.equals(dir)) {
          Files.delete(p);
        }
      }
    }
    // Spark 4 rolls event logs by default (a directory of parts): one file is simpler to read.
    return List.of(
        "--conf", "spark.eventLog.enabled=true",
        "--conf", "spark.eventLog.dir=" + dir.toAbsolutePath().toUri(),
        "--conf", "spark.eventLog.compress=false",
        "--conf", "spark.eventLog.rolling.enabled=false");
  }

  /**
   * The reads per job group in the newest log in {@code dir} (an ended application's, or one still
   * {@code .inprogress} if its driver died).
   *
   * @throws IOException if {@code dir} holds no log, or a line other than the last is not JSON
   */
  public static Map<String, Reads> readDir(Path dir) throws IOException {
    Log log = newest(dir);
    try {
      return parse(log.lines);
    } catch (IllegalArgumentException e) {
      throw new IOException(log.path + ": " + e.getMessage(), e);
    }
  }

  /** When a job group's jobs ran: its first job's submission and its last job's end (epoch ms). */
  public record Span(long submitMs, long endMs) {
    public long millis() {
      return endMs - submitMs;
    }
  }

  /**
   * The span of each job group whose jobs all ended, in the newest log in {@code dir} ({@code
   * SparkListenerJobStart}'s {@code "Submission Time"}, {@code SparkListenerJobEnd}'s {@code
   * "Completion Time"}).
   *
   * @throws IOException as {@link #readDir}
   */
  public static Map<String, Span> spans(Path dir) throws IOException {
    Log log = newest(dir);
    Map<Long, String> jobGroup = new HashMap<>();
    Map<String, long[]> open = new LinkedHashMap<>();
    int n = 0;
    for (String line : log.lines) {
      n++;
      boolean start = line.contains("SparkListenerJobStart");
      if (!start && !line.contains("SparkListenerJobEnd")) {
        continue;
      }
      JsonObject event;
      try {
        event = JsonParser.parseString(line).getAsJsonObject();
      } catch (JsonParseException | IllegalStateException e) {
        if (n == log.lines.size()) {
          break; // a last line still being written
        }
        throw new IOException(log.path + ": line " + n + " is not a JSON object");
      }
      JsonElement id = event.get("Job ID");
      if (!isNumber(id)) {
        continue;
      }
      if (start) {
        JsonElement group = field(event, "Properties", JOB_GROUP);
        JsonElement at = event.get("Submission Time");
        if (group != null && group.isJsonPrimitive() && isNumber(at)) {
          String g = group.getAsString();
          jobGroup.put(id.getAsLong(), g);
          long[] s = open.computeIfAbsent(g, k -> new long[] {Long.MAX_VALUE, 0, 0});
          s[0] = Math.min(s[0], at.getAsLong());
          s[2]++;
        }
      } else {
        String g = jobGroup.get(id.getAsLong());
        JsonElement at = event.get("Completion Time");
        if (g != null && isNumber(at)) {
          long[] s = open.get(g);
          s[1] = Math.max(s[1], at.getAsLong());
          s[2]--;
        }
      }
    }
    Map<String, Span> out = new LinkedHashMap<>();
    open.forEach(
        (g, s) -> {
          if (s[2] == 0) {
            out.put(g, new Span(s[0], s[1]));
          }
        });
    return out;
  }

  private record Log(Path path, List<String> lines) {}

  private static Log newest(Path dir) throws IOException {
    Path log;
    try (Stream<Path> s = Files.list(dir)) {
      log =
          s.max(Comparator.comparing(p -> p.toFile().lastModified()))
              .orElseThrow(() -> new IOException("no Spark event log in " + dir));
    }
    // A rolled log (spark.eventLog.rolling.enabled) is a directory of parts events_<n>_<app>.
    List<Path> parts = new ArrayList<>();
    if (Files.isDirectory(log)) {
      try (Stream<Path> s = Files.list(log)) {
        s.filter(p -> p.getFileName().toString().startsWith("events_"))
            .sorted(Comparator.comparingLong(EventLogFetchWait::partNumber))
            .forEach(parts::add);
      }
    } else {
      parts.add(log);
    }
    List<String> lines = new ArrayList<>();
    for (Path part : parts) {
      lines.addAll(Files.readAllLines(part, StandardCharsets.UTF_8));
    }
    return new Log(log, lines);
  }

  private static long partNumber(Path part) {
    String[] f = part.getFileName().toString().split("_");
    try {
      return f.length > 1 ? Long.parseLong(f[1]) : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * The reads per job group of an event log's lines. A last line cut short (a log still being
   * written) is left out.
   *
   * @throws IllegalArgumentException naming the line that is not JSON
   */
  static Map<String, Reads> parse(Iterable<String> lines) {
    Map<Long, String> stageGroup = new HashMap<>();
    Map<String, Reads> out = new LinkedHashMap<>();
    IllegalArgumentException bad = null;
    int n = 0;
    for (String line : lines) {
      n++;
      if (bad != null) {
        throw bad;
      }
      boolean jobStart = line.contains("SparkListenerJobStart");
      if (!jobStart && !line.contains("SparkListenerTaskEnd")) {
        continue;
      }
      JsonObject event;
      try {
        event = JsonParser.parseString(line).getAsJsonObject();
      } catch (JsonParseException | IllegalStateException e) {
        bad =
            new IllegalArgumentException("line " + n + " is not a JSON object: " + e.getMessage());
        continue;
      }
      JsonElement type = event.get("Event");
      String name = type != null && type.isJsonPrimitive() ? type.getAsString() : "";
      if (jobStart && name.equals("SparkListenerJobStart")) {
        JsonElement group = field(event, "Properties", JOB_GROUP);
        String g = group != null && group.isJsonPrimitive() ? group.getAsString() : "";
        JsonElement ids = event.get("Stage IDs");
        if (ids != null && ids.isJsonArray()) {
          for (JsonElement id : ids.getAsJsonArray()) {
            if (isNumber(id)) {
              stageGroup.putIfAbsent(id.getAsLong(), g);
            }
          }
        }
      } else if (!jobStart && name.equals("SparkListenerTaskEnd")) {
        JsonElement stage = event.get("Stage ID");
        String group = isNumber(stage) ? stageGroup.getOrDefault(stage.getAsLong(), "") : "";
        if (!group.isEmpty()) {
          Reads task =
              new Reads(
                  readMetric(event, "Fetch Wait Time"),
                  readMetric(event, "Remote Blocks Fetched"),
                  readMetric(event, "Remote Bytes Read"),
                  1,
                  taskMetric(event, "JVM GC Time"),
                  taskMetric(event, "Executor Deserialize Time"));
          out.merge(group, task, Reads::plus);
        }
      }
    }
    return out;
  }

  private static long taskMetric(JsonObject taskEnd, String name) {
    JsonElement v = field(taskEnd, "Task Metrics", name);
    return isNumber(v) ? v.getAsLong() : 0;
  }

  private static long readMetric(JsonObject taskEnd, String name) {
    JsonElement v = field(taskEnd, "Task Metrics", "Shuffle Read Metrics", name);
    return isNumber(v) ? v.getAsLong() : 0;
  }

  private static boolean isNumber(JsonElement e) {
    return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber();
  }

  /** The value at {@code path} through nested objects, or null. */
  private static JsonElement field(JsonObject object, String... path) {
    JsonElement v = object;
    for (String key : path) {
      if (v == null || !v.isJsonObject()) {
        return null;
      }
      v = v.getAsJsonObject().get(key);
    }
    return v;
  }
}
