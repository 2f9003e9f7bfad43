package org.coflow.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;

/** {@code bin/coflow agent}: runs a host's Courier agent until SIGTERM or Ctrl-C. */
final class AgentCommand {
  static final String HELP =
      """
      Usage: coflow agent --host-id ID [--port N] [--bind ADDR] [--master HOST:PORT]
                          [--dirs DIR,...] [--secret-file FILE] [--link-rate RATE]
                          [--config FILE] [--port-file FILE] [--insecure]

      Runs the Courier agent of one host: it serves the shuffle data local processes register
      (Spark executors, NodeManagers), fetches blocks of other hosts for local clients over one
      unified connection per host, reports its flows to the master and orders what it fetches by
      the master's schedule (docs/protocol.md). Data never waits for the master.

        --host-id ID      the host this agent is the Courier of (required)
        --port N          listening port (coflow.courier.port, default 7337; 0: any free port)
        --bind ADDR       address to listen on (default 0.0.0.0)
        --master H:P      the coflow master (coflow.courier.master; default: none)
        --dirs D1,D2      the directories it serves: registrations must lie inside them
                          (coflow.courier.dirs; without any, nothing is served)
        --secret-file F   the cluster secret (coflow.courier.secretFile; a file only its owner
                          can read; 'coflow secret --out F' makes one): clients and agents must
                          prove it
        --insecure        run without a secret on an address beyond loopback: anyone who can
                          reach the port may fetch every block it serves and have it fetch for
                          them (docs/security.md). Without a secret and without this flag, the
                          agent listens only on a loopback --bind
        --link-rate R     cap on what the agent sends, e.g. 1g (coflow.courier.linkRate; default off)
        --config FILE     a properties file of coflow.* keys; options win over the file
        --port-file FILE  once listening, write port=N to FILE (for programs that start agents)
      """;

  private AgentCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow agent",
            argv,
            Set.of(
                "host-id",
                "port",
                "bind",
                "master",
                "dirs",
                "secret-file",
                "link-rate",
                "config",
                "port-file"),
            Set.of("help", "insecure"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    if (!a.has("host-id") || a.get("host-id", "").isBlank()) {
      throw new UsageException(
          "coflow agent: --host-id is required (the host this agent is the Courier of)");
    }
    Config config =
        CommandConfig.load(
            "coflow agent",
            a,
            Map.of(
                "port",
                CourierConfig.PORT.key(),
                "master",
                CourierConfig.MASTER.key(),
                "dirs",
                CourierConfig.DIRS.key(),
                "secret-file",
                CourierConfig.SECRET_FILE.key(),
                "link-rate",
                CourierConfig.LINK_RATE.key()));
    String bind = a.get("bind", "0.0.0.0");
    if (config.get(CourierConfig.SECRET_FILE).isEmpty() && !a.has("insecure") && !loopback(bind)) {
      throw new UsageException(
          "coflow agent: no secret (--secret-file or coflow.courier.secretFile) for an agent "
              + "listening on "
              + bind
              + ": anyone who could reach it could fetch every block it serves and feed its "
              + "clients. Make one with 'coflow secret --out FILE' and give every host of the "
              + "cluster the same file, bind a loopback address (--bind 127.0.0.1), or pass "
              + "--insecure to accept this (docs/security.md)");
    }
    double rate = config.get(CourierConfig.LINK_RATE);
    String master = config.get(CourierConfig.MASTER);
    String hostId = a.get("host-id", "");
    CourierAgent agent;
    try {
      agent =
          CourierAgent.start(
              AgentOptions.forHost(hostId)
                  .config(config)
                  // The host's processes register their shuffle files with it over the wire.
                  .clientRegistrations(true)
                  .bind(new InetSocketAddress(bind, config.get(CourierConfig.PORT))));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow agent: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    if (a.has("port-file")) {
      try {
        PortFile.write(Path.of(a.get("port-file", "")), Map.of("port", agent.address().getPort()));
      } catch (IOException e) {
        agent.close();
        throw e;
      }
    }
    out.println(
        "coflow agent "
            + hostId
            + ": listening on "
            + agent.address().getHostString()
            + ":"
            + agent.address().getPort()
            + ", master "
            + (master.isEmpty() ? "none" : master)
            + ", link rate "
            + (rate > 0 ? Units.formatBitRate(rate) : "off"));
    out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  agent.close();
                  stopped.countDown();
                },
                "coflow-agent-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** Whether {@code bind} names only this machine (a loopback address or localhost). */
  static boolean loopback(String bind) {
    try {
      return java.net.InetAddress.getByName(bind).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false; // the agent's own start says the address is unknown
    }
  }
}
