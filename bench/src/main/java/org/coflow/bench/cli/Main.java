package org.coflow.bench.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import org.coflow.core.config.UsageException;
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
    String envHome = System.getenv("COFLOW_HOME");
    Path home = Path.of(envHome == null ? "." : envHome);
    String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
    try {
      switch (argv[0]) {
        case "sim":
          return SimCommand.run(rest, home, out, err);
        case "bench":
          return BenchCommand.run(rest, home, out, err);
        default:
          return DemoCommand.run(rest, home, out, err);
      }
    } catch (UsageException e) {
      err.println(e.getMessage());
      return 2;
    } catch (IOException e) {
      err.println("coflow " + argv[0] + ": " + e);
      return 1;
    }
  }
}
