package org.coflow.testbed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A {@link HostMain} JVM inside a host's namespace, seen from the coordinator: commands go to its
 * stdin, each line it prints goes to a listener (on a reader thread of its own), its stderr to a
 * log file.
 */
final class HostProcess implements AutoCloseable {
  private final int index;
  private final Process process;
  private final Writer stdin;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final Path log;
  private volatile CompletableFuture<String> counters;

  private HostProcess(int index, Process process, Path log) {
    this.index = index;
    this.process = process;
    this.log = log;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * Starts host {@code h} of {@code net} with {@link HostMain}'s arguments; {@code lines} gets
   * every line but {@code ready} and {@code counters}.
   */
  static HostProcess start(
      Network net, int h, List<String> hostArgs, Path log, Consumer<String> lines)
      throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElseThrow(() -> new IOException("cannot tell which java runs this process"));
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    // Small and single-collector: eight of them share two cores with the coordinator.
    cmd.addAll(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    String level = System.getProperty("coflow.testbed.hostLogLevel");
    if (level != null) {
      cmd.add("-Dorg.slf4j.simpleLogger.log.org.coflow=" + level);
    }
    cmd.addAll(List.of("-cp", ManagementFactory.getRuntimeMXBean().getClassPath()));
    cmd.add(HostMain.class.getName());
    cmd.addAll(hostArgs);
    Process p =
        new ProcessBuilder(net.inHost(h, cmd))
            .redirectError(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    HostProcess hp = new HostProcess(h, p, log);
    Thread reader = new Thread(() -> hp.read(lines), "host-" + h + "-out");
    reader.setDaemon(true);
    reader.start();
    return hp;
  }

  private void read(Consumer<String> lines) {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.equals("ready")) {
          ready.complete(null);
        } else if (line.startsWith("counters")) {
          CompletableFuture<String> c = counters;
          if (c != null) {
            c.complete(line);
          }
        } else {
          lines.accept(line);
        }
      }
    } catch (IOException e) {
      // the process ended
    }
    ready.completeExceptionally(
        new IOException("host " + index + " exited before it was ready; its log: " + log));
  }

  void awaitReady(long seconds) throws Exception {
    try {
      ready.get(seconds, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException("host " + index + " not ready in " + seconds + " s; its log: " + log);
    } catch (java.util.concurrent.ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }

  synchronized void send(String line) throws IOException {
    stdin.write(line);
    stdin.write('\n');
    stdin.flush();
  }

  /** The host's counters line ({@code counters k=v ...}). */
  String counters() throws Exception {
    counters = new CompletableFuture<>();
    send("counters");
    return counters.get(30, TimeUnit.SECONDS);
  }

  boolean alive() {
    return process.isAlive();
  }

  Path log() {
    return log;
  }

  @Override
  public void close() {
    try {
      send("quit");
      stdin.close();
    } catch (IOException e) {
      // already gone
    }
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
