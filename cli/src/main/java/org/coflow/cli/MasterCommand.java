package org.coflow.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.UsageException;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;

/** {@code bin/coflow master}: runs the coflow master until SIGTERM or Ctrl-C. */
final class MasterCommand {
  static final String HELP =
      """
      Usage: coflow master [--port N] [--http-port N] [--host ADDR] [--policy NAME] [--config FILE]
                           [--port-file FILE]

      Runs the coflow master: the gRPC control plane agents and frameworks talk to, the scheduling
      loop (every coflow.policy.delta, 100 ms by default), and the dashboard at http://HOST:HTTP-PORT/
      with /api/state, /api/policy and Prometheus /metrics. Stops gracefully on SIGTERM or Ctrl-C.

        --port N          gRPC port (coflow.master.port, default 7090; 0 picks a free one)
        --http-port N     dashboard/metrics port (coflow.master.http.port, default 7091; -1: off)
        --host ADDR       address to bind (coflow.master.host, default 127.0.0.1; another address
                          needs a token, a client CA or coflow.master.insecure=true)
        --policy NAME     fair, aalo, varys, sincronia, graviton, baraat, creek or coda
                          (coflow.master.policy, default aalo; switchable at run time)
        --config FILE     a properties file of coflow.* keys (docs/configuration.md);
                          options given on the command line win over the file
        --port-file FILE  once listening, write grpc.port=N and http.port=N (-1: off) to FILE,
                          for programs that start the master (the banner is for people)
      """;

  private MasterCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow master",
            argv,
            Set.of("port", "http-port", "host", "policy", "config", "port-file"),
            Set.of("help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    Config config = config(a);
    MasterServer server = MasterServer.start(config, null);
    if (a.has("port-file")) {
      try {
        PortFile.write(
            Path.of(a.get("port-file", "")),
            Map.of("grpc.port", server.port(), "http.port", server.httpPort()));
      } catch (IOException e) {
        closeQuietly(server);
        throw e;
      }
    }
    out.println(
        "coflow master "
            + server.service().masterId()
            + ": grpc port "
            + server.port()
            + ", dashboard "
            + (server.httpPort() < 0
                ? "off"
                : "http://" + config.get(MasterConfig.HOST) + ":" + server.httpPort() + "/")
            + ", policy "
            + server.service().policy().name()
            + ", interval "
            + server.service().intervalMillis()
            + " ms");
    out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } finally {
                    stopped.countDown();
                  }
                },
                "coflow-master-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  private static void closeQuietly(MasterServer server) {
    try {
      server.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static Config config(Args a) throws UsageException, IOException {
    return CommandConfig.load(
        "coflow master",
        a,
        Map.of(
            "port",
            MasterConfig.PORT.key(),
            "http-port",
            MasterConfig.HTTP_PORT.key(),
            "host",
            MasterConfig.HOST.key(),
            "policy",
            MasterConfig.POLICY.key()));
  }
}
