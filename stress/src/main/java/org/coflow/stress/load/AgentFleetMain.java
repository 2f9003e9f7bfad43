package org.coflow.stress.load;

import java.io.IOException;

/**
 * Runs an {@link AgentFleet} in a JVM of its own (started by {@code bench master} at a lower CPU
 * priority, so that the master's figures are not those of a machine busy with its own load).
 * Arguments: target agents flows intervalMs capacityBytesPerSec seed. Prints {@code ready} once
 * started and stops when its standard input closes (the parent went away or is done).
 */
public final class AgentFleetMain {
  private static final java.util.logging.Logger GRPC_LOG =
      java.util.logging.Logger.getLogger("io.grpc");

  private AgentFleetMain() {}

  public static void main(String[] args) throws Exception {
    GRPC_LOG.setLevel(java.util.logging.Level.WARNING);
    if (args.length != 6) {
      System.err.println("usage: AgentFleetMain target agents flows intervalMs capacity seed");
      System.exit(2);
    }
    try (AgentFleet fleet =
        new AgentFleet(
            args[0],
            Integer.parseInt(args[1]),
            Integer.parseInt(args[2]),
            Long.parseLong(args[3]),
            Double.parseDouble(args[4]),
            Long.parseLong(args[5]))) {
      fleet.start();
      System.out.println("ready");
      System.out.flush();
      try {
        while (System.in.read() >= 0) {
          // wait for the parent to close our input
        }
      } catch (IOException e) {
        // the parent is gone
      }
    }
    System.exit(0);
  }
}
