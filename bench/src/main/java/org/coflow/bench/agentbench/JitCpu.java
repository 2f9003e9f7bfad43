package org.coflow.bench.agentbench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time spent by the JVM's JIT compiler threads, read from {@code /proc/self/task/*}/stat
 * (Linux; zero elsewhere). The compilers are not Java-visible threads, so this is the only way to
 * tell a one-time compilation cost from the data path's steady CPU per byte.
 */
final class JitCpu {
  /** Clock ticks per second of {@code /proc} times (USER_HZ; 100 on every Linux we run). */
  private static final double TICKS = 100.0;

  private JitCpu() {}

  /** Seconds of CPU the compiler threads used so far; 0 where /proc is missing. */
  static double seconds() {
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return 0;
    }
    long ticks = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
      for (Path task : ds) {
        ticks += compilerTicks(task.resolve("stat"));
      }
    } catch (IOException e) {
      return 0;
    }
    return ticks / TICKS;
  }

  /** utime + stime of one thread if it is a compiler thread ("C1/C2 CompilerThread<n>"), else 0. */
  private static long compilerTicks(Path stat) {
    String line;
    try {
      line = Files.readString(stat);
    } catch (IOException e) {
      return 0; // the thread ended
    }
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open || !line.substring(open + 1, close).contains("CompilerThre")) {
      return 0;
    }
    // After the name: state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    // utime(14) stime(15)
    String[] f = line.substring(close + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
