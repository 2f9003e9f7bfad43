package org.coflow.bench.cli;

import java.io.PrintStream;
import java.util.Arrays;
import org.coflow.core.config.Commands;
import org.coflow.sim.cli.SimCommand;

/**
 * Entry point of {@code bin/coflow} for the simulator and the benchmarks ({@code sim}, {@code
 * demo}, {@code bench}); every other command ({@code master}, {@code agent}, {@code docs}) is the
 * {@code cli} module's, where {@code bin/coflow} starts it on a class path without Spark. The
 * launcher sets {@code COFLOW_HOME} to the project directory, where the shipped data and docs live.
 */
public final class Main {
  private Main() {}

  public static void main(String[] argv) {
    System.exit(run(argv, System.out, System.err));
  }

  static int run(String[] argv, PrintStream out, PrintStream err) {
    if (argv.length == 0 || !java.util.Set.of("sim", "bench", "demo").contains(argv[0])) {
      return org.coflow.cli.Main.run(argv, out, err); // the help, the daemons, unknown commands
    }
    String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
    return Commands.run(
        argv[0],
        err,
        home -> {
          switch (argv[0]) {
            case "sim":
              return SimCommand.run(rest, home, out, err);
            case "bench":
              return BenchCommand.run(rest, home, out, err);
            default:
              return DemoCommand.run(rest, home, out, err);
          }
        });
  }
}
