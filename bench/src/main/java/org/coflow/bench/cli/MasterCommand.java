package org.coflow.bench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.coflow.api.config.Config;
import org.coflow.api.config.ConfigDocs;
import org.coflow.api.config.ConfigRegistry;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterServer;

/** {@code bin/coflow master}: runs the coflow master until SIGTERM or Ctrl-C. */
final class MasterCommand {
  static final String HELP = """
      Usage: coflow master [--port N] [--http-port N] [--host ADDR] [--policy NAME] [--config FILE]

      Runs the coflow master: the gRPC control plane agents and frameworks talk to, the scheduling
      loop (every coflow.policy.delta, 100 ms by default), and the dashboard at http://HOST:HTTP-PORT/
      with /api/state, /api/policy and Prometheus /metrics. Stops gracefully on SIGTERM or Ctrl-C.

        --port N          gRPC port (coflow.master.port, default 7090; 0 picks a free one)
        --http-port N     dashboard/metrics port (coflow.master.http.port, default 7091; -1: off)
        --host ADDR       address to bind (coflow.master.host, default 0.0.0.0)
        --policy NAME     fair, aalo, varys, sincronia, graviton, baraat, creek or coda
                          (coflow.master.policy, default aalo; switchable at run time)
        --config FILE     a properties file of coflow.* keys (docs/configuration.md);
                          options given on the command line win over the file
      """;

  private MasterCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err) throws UsageException, IOException {
    Args a = Args.parse("coflow master", argv, Set.of("port", "http-port", "host", "policy", "config"),
        Set.of("help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    Config config = config(a);
    MasterServer server = MasterServer.start(config, null);
    out.println("coflow master " + server.service().masterId() + ": grpc port " + server.port()
        + ", dashboard " + (server.httpPort() < 0 ? "off"
            : "http://" + config.get(MasterConfig.HOST) + ":" + server.httpPort() + "/")
        + ", policy " + server.service().policy().name() + ", interval "
        + server.service().intervalMillis() + " ms");
    out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        stopped.countDown();
      }
    }, "coflow-master-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** The file's keys, then the command line's, validated against every registry. */
  static Config config(Args a) throws UsageException, IOException {
    Map<String, String> raw = new HashMap<>();
    if (a.has("config")) {
      Path file = Path.of(a.get("config", ""));
      if (!Files.isReadable(file)) {
        throw new UsageException("coflow master: cannot read --config " + file
            + ": give a readable properties file of coflow.* keys");
      }
      Properties props = new Properties();
      try (InputStream in = Files.newInputStream(file)) {
        props.load(in);
      }
      for (String k : props.stringPropertyNames()) {
        raw.put(k, props.getProperty(k).trim());
      }
    }
    option(a, raw, "port", MasterConfig.PORT.key());
    option(a, raw, "http-port", MasterConfig.HTTP_PORT.key());
    option(a, raw, "host", MasterConfig.HOST.key());
    option(a, raw, "policy", MasterConfig.POLICY.key());
    List<ConfigRegistry> registries = ConfigDocs.discover();
    try {
      return Config.parse(raw, List.of("coflow."), registries.toArray(new ConfigRegistry[0]));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow master: " + e.getMessage());
    }
  }

  private static void option(Args a, Map<String, String> raw, String option, String key) {
    if (a.has(option)) {
      raw.put(key, a.get(option, ""));
    }
  }
}
