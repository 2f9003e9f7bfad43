package org.coflow.testbed.cli;

import java.io.PrintStream;
import java.util.Arrays;
import org.coflow.core.config.Commands;
import org.coflow.core.config.UsageException;

/**
 * Entry point of {@code bin/coflow bench testbed}: Courier between network-namespace hosts, on a
 * class path of the agent, the master and the simulator's trace and reports (no Spark).
 */
public final class Main {
  private Main() {}

  public static void main(String[] argv) {
    System.exit(run(argv, System.out, System.err));
  }

  static int run(String[] argv, PrintStream out, PrintStream err) {
    return Commands.run(
        String.join(" ", argv),
        err,
        home -> {
          if (argv.length > 1 && argv[0].equals("bench") && argv[1].equals("testbed")) {
            return TestbedBenchCommand.run(
                Arrays.copyOfRange(argv, 2, argv.length), home, out, err);
          }
          throw new UsageException(
              "coflow: this is 'bench testbed', not '"
                  + String.join(" ", argv)
                  + "'; see 'coflow bench --help'");
        });
  }
}
