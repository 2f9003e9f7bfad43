package org.coflow.mr;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A coflow master in a process of its own ({@code coflow master --port 0}): the master's unshaded
 * gRPC and protobuf must not meet the shaded jar's copies in the NodeManagers' JVM. It runs from
 * the {@code cli} module's build output (its jar and {@code target/lib}), never through {@code
 * bin/coflow}, so nothing here starts a build; it tells its port through {@code --port-file}, not
 * its banner.
 */
public final class MasterProcess implements AutoCloseable {
  private static final long START_MILLIS = 60_000;

  private final Process process;
  private final int port;

  private MasterProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the master of the checkout at {@code home} under {@code policy}; waits for its port. */
  public static MasterProcess start(Path home, String policy)
      throws IOException, InterruptedException {
    Path portFile = Files.createTempFile("coflow-master", ".ports");
    Files.delete(portFile);
    Path log = Files.createTempFile("coflow-master", ".log");
    log.toFile().deleteOnExit();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                classPath(home),
                "org.coflow.cli.Main",
                "master",
                "--port",
                "0",
                "--http-port",
                "-1",
                "--host",
                "127.0.0.1",
                "--policy",
                policy,
                "--port-file",
                portFile.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    long deadline = System.currentTimeMillis() + START_MILLIS;
    while (System.currentTimeMillis() < deadline) {
      if (Files.exists(portFile)) {
        Properties ports = new Properties();
        try (var in = Files.newBufferedReader(portFile, StandardCharsets.UTF_8)) {
          ports.load(in);
        }
        Files.deleteIfExists(portFile);
        return new MasterProcess(p, Integer.parseInt(ports.getProperty("grpc.port").trim()));
      }
      if (!p.isAlive()) {
        break;
      }
      Thread.sleep(50);
    }
    p.destroyForcibly();
    throw new IOException(
        "the coflow master did not start (exit "
            + (p.isAlive() ? "none" : p.exitValue())
            + "):\n"
            + Files.readString(log, StandardCharsets.UTF_8));
  }

  /** The cli module's jar and its dependencies, as its build left them. */
  private static String classPath(Path home) throws IOException {
    Path target = home.resolve("cli/target");
    List<String> entries = new ArrayList<>();
    if (Files.isDirectory(target.resolve("lib"))) {
      try (Stream<Path> s = Files.list(target)) {
        s.filter(
                f ->
                    f.getFileName().toString().matches("coflow-cli-.*\\.jar")
                        && !f.getFileName().toString().endsWith("-tests.jar"))
            .forEach(f -> entries.add(f.toString()));
      }
    }
    if (entries.isEmpty()) {
      throw new IOException(
          "no built master in " + target + ": build it first (mvn -pl cli -am package)");
    }
    entries.add(target.resolve("lib") + File.separator + "*");
    return String.join(File.pathSeparator, entries);
  }

  /** host:port of its gRPC service. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
