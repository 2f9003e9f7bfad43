package org.coflow.stress.cli;

import java.io.PrintStream;
import java.util.Arrays;
import org.coflow.core.config.Commands;
import org.coflow.core.config.UsageException;

/**
 * Entry point of {@code bin/coflow} for the stress tests of the daemons: {@code bench fuzz}, {@code
 * bench load} and {@code bench master}, on a class path of the master and the agent (no Spark).
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
          if (argv.length > 1 && argv[0].equals("bench")) {
            String[] rest = Arrays.copyOfRange(argv, 2, argv.length);
            switch (argv[1]) {
              case "fuzz":
                return FuzzBenchCommand.run(rest, out, err);
              case "load":
                return AgentLoadCommand.run(rest, out, err);
              case "master":
                return LoadCommand.run(rest, out, err);
              default:
                break;
            }
          }
          throw new UsageException(
              "coflow: the stress tests are 'bench fuzz', 'bench load' and 'bench master', not '"
                  + String.join(" ", argv)
                  + "'; see 'coflow bench --help'");
        });
  }
}
