package org.coflow.master;

import org.coflow.core.config.Config;
import org.coflow.master.service.MasterConfig;

/**
 * A master in a JVM of its own, for attacks on its memory: started on loopback with free ports, it
 * prints {@code ready <grpc port> <http port>} and serves until its standard input closes.
 */
public final class SmallHeapMaster {
  private SmallHeapMaster() {}

  public static void main(String[] args) throws Exception {
    try (MasterServer server =
        MasterServer.start(
            Config.defaults()
                .with(MasterConfig.HOST, "127.0.0.1")
                .with(MasterConfig.PORT, 0)
                .with(MasterConfig.HTTP_PORT, 0),
            null)) {
      System.out.println("ready " + server.port() + " " + server.httpPort());
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the test closes our input (or dies)
      }
    }
  }
}
