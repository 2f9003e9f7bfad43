package org.coflow.sim.cli;

import java.io.PrintStream;
import java.util.Arrays;
import org.coflow.core.config.Commands;
import org.coflow.core.config.UsageException;

/**
 * Entry point of {@code bin/coflow} for the simulator: {@code sim}, {@code bench sim} and {@code
 * bench identify}, on a class path of the scheduling core alone. The launcher sets {@code
 * COFLOW_HOME} to the project directory, where the shipped trace lives.
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
          if (argv.length > 0 && argv[0].equals("sim")) {
            return SimCommand.run(Arrays.copyOfRange(argv, 1, argv.length), home, out, err);
          }
          if (argv.length > 1 && argv[0].equals("bench")) {
            String[] rest = Arrays.copyOfRange(argv, 2, argv.length);
            switch (argv[1]) {
              case "sim":
                return SimBenchCommand.run(rest, home, out, err);
              case "identify":
                return IdentifyBenchCommand.run(rest, home, out, err);
              default:
                break;
            }
          }
          throw new UsageException(
              "coflow: the simulator runs 'sim', 'bench sim' and 'bench identify', not '"
                  + String.join(" ", argv)
                  + "'; see 'coflow --help'");
        });
  }
}
