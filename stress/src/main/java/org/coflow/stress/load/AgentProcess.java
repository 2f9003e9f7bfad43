package org.coflow.stress.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The agent of {@code bench load} running in its own JVM ({@link AgentLoadMain}): started with a
 * heap and a direct-memory cap, asked for its figures over its standard input, its log kept in a
 * file that is searched for out-of-memory errors once it stopped.
 */
final class AgentProcess implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;
  private final OutputStream in;
  private final Path log;
  private final int port;
  private int exit = -1;

  private AgentProcess(Process process, BufferedReader out, Path log, int port) {
    this.process = process;
    this.out = out;
    this.in = process.getOutputStream();
    this.log = log;
    this.port = port;
  }

  /**
   * Starts an agent of {@code hostId} serving {@code root} with {@code settings} ({@code
   * coflow.courier.KEY=VALUE}), at most {@code maxDirect} bytes of direct memory and {@code
   * maxHeap} of heap; its standard error goes to {@code log}.
   */
  static AgentProcess start(
      String hostId, Path root, List<String> settings, long maxDirect, long maxHeap, Path log)
      throws IOException {
    List<String> args = new ArrayList<>();
    args.add("-Xmx" + (maxHeap >> 20) + "m");
    args.add("-XX:MaxDirectMemorySize=" + maxDirect);
    args.add(AgentLoadMain.class.getName());
    args.add(hostId);
    args.add(root.toString());
    args.addAll(settings);
    Process p =
        new ProcessBuilder(JavaCommand.of(args.toArray(new String[0])))
            .redirectError(log.toFile())
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (line == null || !line.startsWith("ready ")) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "the agent did not start (said: " + line + "); its log: " + tail(log));
    }
    return new AgentProcess(p, out, log, Integer.parseInt(line.substring(6).trim()));
  }

  int port() {
    return port;
  }

  /** The agent's figures now (connections, refusals, buffered bytes, memory and their peaks). */
  synchronized Map<String, String> stats() throws IOException {
    in.write("stats\n".getBytes(StandardCharsets.UTF_8));
    in.flush();
    String line = out.readLine();
    if (line == null || !line.startsWith("stats ")) {
      throw new IOException("the agent's JVM stopped answering (said: " + line + ")");
    }
    Map<String, String> stats = new HashMap<>();
    for (String kv : line.substring(6).split(" ")) {
      int eq = kv.indexOf('=');
      stats.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return stats;
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Lines of the agent's log that report an out-of-memory error. */
  List<String> outOfMemory() throws IOException {
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines
          .filter(l -> l.contains("OutOfMemoryError") || l.contains("OutOfDirectMemoryError"))
          .limit(5)
          .toList();
    }
  }

  /** The JVM's exit code once {@link #close} stopped it (-1 before, or if it had to be killed). */
  int exitCode() {
    return exit;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (process.isAlive()) {
      try {
        in.write("quit\n".getBytes(StandardCharsets.UTF_8));
        in.close();
      } catch (IOException e) {
        // it is going away already
      }
    }
    if (process.waitFor(20, TimeUnit.SECONDS)) {
      exit = process.exitValue();
    } else {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
