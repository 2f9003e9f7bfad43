package org.coflow.coda;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.config.Config;
import org.coflow.core.config.ConfigKey;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.ConfigType;

/**
 * The coda-agent's settings ({@code coflow.coda.*}). On the command line they follow the jar:
 * {@code -javaagent:coda-agent.jar=master=HOST:PORT,minFlowBytes=100k}; a name without a dot is
 * short for {@code coflow.coda.<name>}.
 */
public final class CodaConfig {
  private static final String V = "0.1.0";

  public static final ConfigRegistry REGISTRY =
      new ConfigRegistry(
          "coda-agent",
          "The `-javaagent` that sees and paces the TCP flows of unmodified JVMs "
              + "(docs/coda-agent.md). Set as `-javaagent:coda-agent.jar=master=HOST:PORT,key=value,...`; "
              + "a key without a dot is short for `coflow.coda.<key>`.");

  public static final ConfigKey<String> MASTER =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.master", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "The coflow master's gRPC address, host:port. Empty: the agent counts flows but "
                      + "reports nothing and paces nothing.")
              .since(V)
              .build());

  public static final ConfigKey<String> MODE =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.mode", ConfigType.STRING)
              .defaultValue("dark")
              .doc(
                  "`dark`: flows are reported without a coflow id and the master identifies them "
                      + "(coflow.master.identify.mode=coda); the engine's own label rides along as "
                      + "`label.coflow`, which identification never reads. `labelled`: the label is "
                      + "the flow's coflow id (flows without one are still identified).")
              .check(v -> v.equals("dark") || v.equals("labelled"), "dark or labelled")
              .since(V)
              .build());

  public static final ConfigKey<String> HOST_ID =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.hostId", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "This machine's host id at the master (every JVM of a machine names the same). "
                      + "Empty: the address of the machine's host name. Remote ends are named by their "
                      + "IP address, loopback and local addresses by this id.")
              .since(V)
              .build());

  public static final ConfigKey<Long> MIN_FLOW_BYTES =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.minFlowBytes", ConfigType.BYTES)
              .defaultValue(100L * 1000)
              .doc(
                  "CODA's pruning: a flow is reported once it has sent this much (control traffic "
                      + "never is), at once, if it is still going when its report leaves: like the "
                      + "paper's agent, it does not report flows that already finished.")
              .check(v -> v >= 0, "not negative")
              .since(V)
              .build());

  public static final ConfigKey<Long> FLOW_GAP_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.flowGap", ConfigType.DURATION_MS)
              .defaultValue(500L)
              .doc(
                  "A connection's traffic one way is split into flows at idle gaps this long: "
                      + "Spark and Hadoop keep connections open across shuffles, so a connection is "
                      + "not a flow (docs/coda-agent.md).")
              .check(v -> v >= 10, "at least 10 ms")
              .since(V)
              .build());

  public static final ConfigKey<Long> FIRST_QUEUE_BYTES =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.firstQueue", ConfigType.BYTES)
              .defaultValue(10L << 20)
              .doc(
                  "Aalo's first queue: a flow's first bytes go at full speed, without waiting for "
                      + "the master.")
              .check(v -> v >= 0, "not negative")
              .since(V)
              .build());

  public static final ConfigKey<Long> COORDINATION_WAIT_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.coordinationWait", ConfigType.DURATION_MS)
              .defaultValue(500L)
              .doc(
                  "Past its first queue, a flow without a rate yet waits at most this long for the "
                      + "master's first schedule (Aalo: beyond the first queue flows wait for "
                      + "coordination). Only while a master session is live; 0: never wait.")
              .check(v -> v >= 0 && v <= 10_000, "between 0 and 10 s")
              .since(V)
              .build());

  public static final ConfigKey<Boolean> PACE =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.pace", ConfigType.BOOLEAN)
              .defaultValue(true)
              .doc("Pace flows at the rates the master sends (false: report only).")
              .since(V)
              .build());

  public static final ConfigKey<Double> LINK_RATE =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.linkRate", ConfigType.BIT_RATE)
              .defaultValue(0.0)
              .doc(
                  "The host's link capacity declared to the master (bytes/s; `1g` = 1 Gbit/s). 0: "
                      + "the master's coflow.master.defaultCapacity.")
              .check(v -> v >= 0, "not negative")
              .since(V)
              .build());

  public static final ConfigKey<Long> REPORT_INTERVAL_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.reportInterval", ConfigType.DURATION_MS)
              .defaultValue(0L)
              .doc("How often flows are reported; 0: the master's interval Δ.")
              .check(v -> v >= 0, "not negative")
              .since(V)
              .build());

  public static final ConfigKey<String> TOKEN_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.tokenFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "The master's bearer token file (coflow.master.auth.tokenFile), chmod 600. Empty: "
                      + "no token.")
              .since(V)
              .build());

  public static final ConfigKey<String> TLS_TRUST_CERT_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.coda.tls.trustCertFile", ConfigType.STRING)
              .defaultValue("")
              .doc("PEM certificate(s) to trust for the master's TLS. Empty: plaintext.")
              .since(V)
              .build());

  private CodaConfig() {}

  /**
   * Parses the agent argument: {@code key=value} pairs separated by commas.
   *
   * @throws IllegalArgumentException naming the malformed part and what is expected
   */
  public static Config parseArgs(String args) {
    Map<String, String> raw = new LinkedHashMap<>();
    if (args != null && !args.isBlank()) {
      for (String part : args.split(",")) {
        String p = part.trim();
        if (p.isEmpty()) {
          continue;
        }
        int eq = p.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "malformed agent argument '"
                  + p
                  + "': expected key=value pairs separated by commas, e.g. "
                  + "-javaagent:coda-agent.jar=master=HOST:PORT,minFlowBytes=100k");
        }
        String key = p.substring(0, eq).trim();
        String full = key.contains(".") ? key : "coflow.coda." + key;
        if (raw.put(full, p.substring(eq + 1).trim()) != null) {
          throw new IllegalArgumentException(
              "agent argument '" + key + "' given twice: give each key once");
        }
      }
    }
    Config c = Config.parse(raw, List.of("coflow.coda."), REGISTRY);
    String master = c.get(MASTER);
    if (!master.isEmpty()) {
      int colon = master.lastIndexOf(':');
      boolean ok = colon > 0 && colon < master.length() - 1;
      if (ok) {
        try {
          int port = Integer.parseInt(master.substring(colon + 1));
          ok = port > 0 && port <= 65535;
        } catch (NumberFormatException e) {
          ok = false;
        }
      }
      if (!ok) {
        throw new IllegalArgumentException(
            "agent argument master='" + master + "' is not HOST:PORT (e.g. master=10.0.0.5:7070)");
      }
    }
    return c;
  }

  /** Announces the registry to bin/coflow docs. */
  public static final class Provider implements ConfigRegistry.Provider {
    @Override
    public List<ConfigRegistry> registries() {
      return List.of(REGISTRY);
    }
  }
}
