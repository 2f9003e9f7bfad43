package org.coflow.cli;

import java.io.PrintStream;
import java.util.Arrays;
import org.coflow.core.config.Commands;

/**
 * Entry point of {@code bin/coflow} for the daemons, the documentation and secrets: {@code master},
 * {@code agent}, {@code docs} and {@code secret} run on a class path of the master and the agent
 * only. The benchmark and simulator commands live in {@code bench}, whose entry point hands these
 * three to this class. The launcher sets {@code COFLOW_HOME} to the project directory.
 */
public final class Main {
  /** The help of {@code bin/coflow}: every command, whichever module runs it. */
  public static final String HELP =
      """
      Usage: coflow <command> [options]

      Commands:
        sim      replay a coflow trace under scheduling policies and compare CCTs
        master   run the coflow master (gRPC control plane, scheduling loop, dashboard)
        agent    run a host's Courier agent (serve, fetch, merge, enforce the schedule)
        demo     a real spark-submit with a large and a small shuffle, fair sharing vs a
                 coflow policy, through our jar (sets pyspark up on first use)
        bench    benchmarks: the simulator, the master, the agents, real Spark and
                 MapReduce, the network-namespace testbeds ('coflow bench --help' lists them)
        docs     regenerate docs/configuration.md from the configuration registries
        secret   print a new cluster secret (or write it to a file only its owner can read)

      'coflow <command> --help' describes a command.
      """;

  /**
   * gRPC logs through java.util.logging: its INFO lines (transport details) are not for users, and
   * its server handler reports every stream an agent closed under a pending write as a WARNING with
   * a stack trace (an agent going away is routine; the master logs sessions itself).
   */
  static final java.util.logging.Logger GRPC_LOG =
      quiet("io.grpc", java.util.logging.Level.WARNING);

  static final java.util.logging.Logger GRPC_SERVER_HANDLER_LOG =
      quiet(
          "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler", java.util.logging.Level.SEVERE);

  private Main() {}

  private static java.util.logging.Logger quiet(String name, java.util.logging.Level level) {
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
    logger.setLevel(level);
    return logger;
  }

  public static void main(String[] argv) {
    System.exit(run(argv, System.out, System.err));
  }

  /** Runs a command; returns its exit status (2 for bad usage). */
  public static int run(String[] argv, PrintStream out, PrintStream err) {
    if (argv.length == 0
        || argv[0].equals("--help")
        || argv[0].equals("-h")
        || argv[0].equals("help")) {
      out.print(HELP);
      return argv.length == 0 ? 2 : 0;
    }
    String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
    return Commands.run(
        argv[0],
        err,
        home -> {
          switch (argv[0]) {
            case "master":
              return MasterCommand.run(rest, out, err);
            case "agent":
              return AgentCommand.run(rest, out, err);
            case "docs":
              return DocsCommand.run(rest, home, out, err);
            case "secret":
              return SecretCommand.run(rest, out);
            default:
              err.println(
                  "coflow: unknown command '"
                      + argv[0]
                      + "'; commands: sim, master, agent, demo, bench, docs, secret");
              return 2;
          }
        });
  }
}
