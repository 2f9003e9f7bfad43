package org.coflow.bench.load;

import java.nio.file.Path;
import java.util.List;

/**
 * How to start another JVM like this one (the benchmark's simulated agents): this JVM's
 * {@code java} and class path. These are facts about the running process, not configuration.
 */
final class JavaCommand {
  private JavaCommand() {}

  /** {@code java -cp <this class path> <extra...>}. */
  static List<String> of(String... extra) {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.addAll(List.of(extra));
    return cmd;
  }
}
