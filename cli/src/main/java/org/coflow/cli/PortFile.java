package org.coflow.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Properties;

/**
 * {@code --port-file}: where a daemon tells programs (tests, scripts) the ports it bound, as a
 * properties file ({@code grpc.port=43121}), written once it listens and moved into place
 * atomically, so a reader that sees the file sees all of it. The banner on standard output is for
 * people and may change.
 */
public final class PortFile {
  private PortFile() {}

  /** Writes {@code ports} (name to port) to {@code file}. */
  static void write(Path file, Map<String, Integer> ports) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    StringBuilder text = new StringBuilder();
    ports.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Files.writeString(tmp, text.toString(), StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The port named {@code name} in a port file, or -1 while the file is not there. */
  public static int read(Path file, String name) throws IOException {
    if (!Files.exists(file)) {
      return -1;
    }
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    }
    String v = p.getProperty(name);
    if (v == null) {
      throw new IOException(file + " names no " + name + ": " + p);
    }
    return Integer.parseInt(v.trim());
  }
}
