package org.coflow.bench.swim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A SWIM workload (tab-separated: job id, submit second, gap, input bytes, shuffle bytes, output
 * bytes; see bench/data/swim/README.md) turned into the jobs a replay submits: bytes divided by one
 * factor, gaps by another, and each job's shape chosen as SWIM's generator does in spirit (at least
 * a little shuffle and output for a job that has a reduce stage, reducers by bytes).
 */
public final class SwimPlan {
  /** Bytes of map input per map task, after scaling (at least 2 maps, at most 8). */
  static final long INPUT_PER_MAP = 4L << 20;

  /** Bytes of shuffle per reduce task (at least 1 reducer, at most 4). */
  static final long SHUFFLE_PER_REDUCE = 4L << 20;

  /** SWIM raises any non-zero shuffle and output to at least this. */
  static final long MIN_BYTES = 1024;

  /** One job to submit: when (ms from the start), its tasks and bytes; reducers 0 = map-only. */
  public record Job(
      String name, long submitMillis, int maps, int reducers, long shuffleBytes, long outputBytes) {
    String line() {
      return String.join(
          "\t",
          name,
          Long.toString(submitMillis),
          Integer.toString(maps),
          Integer.toString(reducers),
          Long.toString(shuffleBytes),
          Long.toString(outputBytes));
    }
  }

  private SwimPlan() {}

  /**
   * Reads the first {@code limit} jobs of {@code trace}.
   *
   * @throws IllegalArgumentException naming the file, line and value of anything malformed
   */
  public static List<Job> plan(Path trace, int limit, double bytesDivisor, double gapDivisor)
      throws IOException {
    if (!(bytesDivisor >= 1) || !(gapDivisor >= 1)) {
      throw new IllegalArgumentException(
          "the byte and gap divisors must be at least 1 (got "
              + bytesDivisor
              + " and "
              + gapDivisor
              + ")");
    }
    List<Job> jobs = new ArrayList<>();
    List<String> lines = Files.readAllLines(trace, StandardCharsets.UTF_8);
    long submit = 0;
    for (int i = 0; i < lines.size() && jobs.size() < limit; i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      String where = trace + " line " + (i + 1);
      String[] f = line.split("\t", -1);
      if (f.length < 6) {
        throw new IllegalArgumentException(
            where
                + ": "
                + f.length
                + " tab-separated fields, a SWIM workload has "
                + "6 (job, submit s, gap s, input, shuffle, output bytes): is this a SWIM .tsv file?");
      }
      long gap = number(f[2], where, "gap");
      long input = number(f[3], where, "input bytes");
      long shuffle = number(f[4], where, "shuffle bytes");
      long output = number(f[5], where, "output bytes");
      submit += Math.round(gap * 1000 / gapDivisor);
      long in = Math.round(input / bytesDivisor);
      long sh = shuffle == 0 ? 0 : Math.max(MIN_BYTES, Math.round(shuffle / bytesDivisor));
      long out = Math.max(MIN_BYTES, Math.round(output / bytesDivisor));
      int maps = (int) Math.max(2, Math.min(8, (in + INPUT_PER_MAP - 1) / INPUT_PER_MAP));
      int reducers =
          sh == 0
              ? 0
              : (int) Math.max(1, Math.min(4, (sh + SHUFFLE_PER_REDUCE - 1) / SHUFFLE_PER_REDUCE));
      String name = f[0].trim();
      if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
        throw new IllegalArgumentException(where + ": job id '" + name + "' is not a plain name");
      }
      jobs.add(new Job(name, submit, maps, reducers, sh, out));
    }
    if (jobs.isEmpty()) {
      throw new IllegalArgumentException(trace + " holds no jobs");
    }
    return jobs;
  }

  private static long number(String s, String where, String what) {
    try {
      long v = Long.parseLong(s.trim());
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          where + ": " + what + " '" + s + "' is not a non-negative whole number");
    }
  }

  /** Writes the plan for the replay process: one job per line, the fields of {@link Job}. */
  public static void write(List<Job> jobs, Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    for (Job j : jobs) {
      lines.add(j.line());
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /** Total shuffle bytes of the plan. */
  public static long shuffleBytes(List<Job> jobs) {
    return jobs.stream().mapToLong(Job::shuffleBytes).sum();
  }

  /** One line about the plan: jobs, map-only jobs, span, shuffle. */
  public static String describe(List<Job> jobs) {
    long maponly = jobs.stream().filter(j -> j.reducers() == 0).count();
    return String.format(
        Locale.ROOT,
        "%d jobs (%d map-only) over %.1f s, %.1f MB of shuffle",
        jobs.size(),
        maponly,
        jobs.get(jobs.size() - 1).submitMillis() / 1000.0,
        shuffleBytes(jobs) / 1e6);
  }
}
