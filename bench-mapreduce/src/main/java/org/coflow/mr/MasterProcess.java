package org.coflow.mr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A coflow master in a process of its own ({@code bin/coflow master --port 0}): the master's
 * unshaded gRPC and protobuf must not meet the shaded jar's copies in the NodeManagers' JVM.
 */
public final class MasterProcess implements AutoCloseable {
  private static final Pattern PORT = Pattern.compile("grpc port (\\d+)");

  private final Process process;
  private final int port;

  private MasterProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the master of the checkout at {@code home} under {@code policy}; waits for its port. */
  public static MasterProcess start(Path home, String policy) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(home.resolve("bin/coflow").toString(), "master", "--port", "0",
        "--http-port", "-1", "--host", "127.0.0.1", "--policy", policy)
        .redirectErrorStream(true).start();
    BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    String line;
    while ((line = r.readLine()) != null) {
      seen.append(line).append('\n');
      Matcher m = PORT.matcher(line);
      if (m.find()) {
        int port = Integer.parseInt(m.group(1));
        Thread drain = new Thread(() -> {
          try {
            while (r.readLine() != null) {
              // keep the pipe from filling
            }
          } catch (IOException e) {
            // the master ended
          }
        }, "master-output");
        drain.setDaemon(true);
        drain.start();
        return new MasterProcess(p, port);
      }
    }
    p.waitFor(10, TimeUnit.SECONDS);
    throw new IOException("bin/coflow master did not start:\n" + seen);
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
