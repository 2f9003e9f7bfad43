package org.coflow.core.config;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * What every entry point of {@code bin/coflow} shares: the project directory the launcher names
 * ({@code COFLOW_HOME}, where the shipped data and docs live) and the exit statuses.
 */
public final class Commands {
  private Commands() {}

  /** A command's body, given the project directory. */
  public interface Body {
    int run(Path home) throws UsageException, IOException;
  }

  /**
   * Runs {@code body}: a usage error prints its message and exits 2, an I/O error prints {@code
   * coflow <command>: <error>} and exits 1.
   */
  public static int run(String command, PrintStream err, Body body) {
    String envHome = System.getenv("COFLOW_HOME");
    try {
      return body.run(Path.of(envHome == null ? "." : envHome));
    } catch (UsageException e) {
      err.println(e.getMessage());
      return 2;
    } catch (IOException e) {
      err.println("coflow " + command + ": " + e);
      return 1;
    }
  }
}
