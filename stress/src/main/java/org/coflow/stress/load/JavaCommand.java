package org.coflow.stress.load;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * How to start another JVM like this one (the benchmark's simulated agents): this process's {@code
 * java} executable and class path, as the runtime reports them. Facts about the running process,
 * not configuration.
 */
final class JavaCommand {
  private JavaCommand() {}

  /** {@code java -cp <this class path> <extra...>}. */
  static List<String> of(String... extra) {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElseThrow(
                () -> new IllegalStateException("cannot tell which java runs this process"));
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-cp");
    cmd.add(ManagementFactory.getRuntimeMXBean().getClassPath());
    cmd.addAll(List.of(extra));
    return cmd;
  }
}
