package org.coflow.courier;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.coflow.core.config.Config;
import org.coflow.core.config.ConfigKey;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.ConfigType;
import org.coflow.core.merge.MergeConfig;

/** Configuration keys of Courier's flow merging (the agent adds its own as it grows). */
public final class CourierConfig implements ConfigRegistry.Provider {
  public static final ConfigRegistry REGISTRY =
      new ConfigRegistry(
          "Courier agent",
          "Keys of the per-host Courier agent (`coflow.courier.*`), also used by `bin/coflow sim --courier`.");

  /** Courier's MaxNum; defined with the merge rules it parameterises. */
  public static final ConfigKey<Integer> MAX_NUM = REGISTRY.add(MergeConfig.MAX_NUM);

  /** Courier's MinSize; defined with the merge rules it parameterises. */
  public static final ConfigKey<Long> MIN_SIZE = REGISTRY.add(MergeConfig.MIN_SIZE);

  public static final ConfigKey<Long> LANE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.lane", ConfigType.BYTES)
              .defaultValue(128L << 10)
              .doc(
                  "The latency lane: each flow's first this many bytes (a coflow's blocks from one "
                      + "host, counted from when the flow was last idle; every block of a small "
                      + "coflow) go on one more connection per peer, kept outside MaxNum's bulk "
                      + "connections, so that they wait neither for a connection nor behind the "
                      + "bytes other coflows already queued in the bulk connections' buffers. A "
                      + "block larger than this always goes bulk. 0: no lane. Only with "
                      + "`coflow.courier.merge`.")
              .check(v -> v >= 0, "zero or more")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Boolean> MERGE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.merge", ConfigType.BOOLEAN)
              .defaultValue(true)
              .doc(
                  "Whether a host's fetches from one host share that host pair's connections "
                      + "(Courier's unified flows, the default). false: every flow (a coflow's "
                      + "blocks from one host) gets connections of its own, as without Courier, "
                      + "with the same schedule; `bin/coflow bench testbed` compares the two.")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Boolean> ADAPTIVE_MAX_NUM =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxNum.adaptive", ConfigType.BOOLEAN)
              .defaultValue(false)
              .doc(
                  "Let the agent choose its connection budget (Courier leaves choosing MaxNum "
                      + "open, §6.4): starting at `coflow.courier.maxNum`, every "
                      + "`coflow.courier.maxNum.adaptive.interval` it halves the budget when the "
                      + "host sees loss on what it receives (out-of-order segments per segment "
                      + "received above `coflow.courier.maxNum.adaptive.loss`), adds one "
                      + "connection while the budget binds and goodput holds, and takes back an "
                      + "increase that cost goodput; between 1 and "
                      + "`coflow.courier.maxNum.adaptive.max`. Needs Linux's /proc/net counters; "
                      + "elsewhere it goes by goodput alone. docs/testbed.md.")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Integer> ADAPTIVE_MAX =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxNum.adaptive.max", ConfigType.INT)
              .defaultValue(32)
              .doc("The largest budget the adaptive MaxNum controller may choose.")
              .check(v -> v >= 1, "at least 1")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> ADAPTIVE_INTERVAL =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxNum.adaptive.interval", ConfigType.DURATION_MS)
              .defaultValue(500L)
              .doc(
                  "How often the adaptive MaxNum controller looks at goodput and loss (at least "
                      + "50 ms: several RTTs and enough segments to tell loss from noise).")
              .check(v -> v >= 50, "at least 50 ms")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Double> ADAPTIVE_LOSS =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxNum.adaptive.loss", ConfigType.DOUBLE)
              .defaultValue(0.01)
              .doc(
                  "Loss signal above which the adaptive controller halves the budget: segments "
                      + "that arrived out of order (a hole before them: a drop) per segment "
                      + "received in the interval. Growth needs it below a tenth of this.")
              .check(v -> v > 0 && v < 1, "between 0 and 1")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Integer> PORT =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.port", ConfigType.INT)
              .defaultValue(7337)
              .doc(
                  "Port the agent listens on for local clients and other hosts' agents; 0 picks a free one.")
              .check(v -> v >= 0 && v <= 65535, "between 0 and 65535")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Double> LINK_RATE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.linkRate", ConfigType.BIT_RATE)
              .defaultValue(0.0)
              .doc(
                  "Cap on what the agent sends, all connections together (e.g. 1g); 0 (the default) is no "
                      + "cap. On one machine, where loopback is never the bottleneck, it makes scheduling "
                      + "visible.")
              .check(v -> v >= 0, "zero or more")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> MASTER =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.master", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "The coflow master as host:port; empty: no master (every coflow has the same priority).")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> DIRS =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.dirs", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "Comma-separated directories local processes may register data under (their shuffle "
                      + "directories must lie inside one); the agent serves and writes nothing "
                      + "outside them, and with none (the default) it serves nothing. Spark "
                      + "executors' and NodeManagers' agents add their own local directories.")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Integer> THREADS =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.threads", ConfigType.INT)
              .defaultValue(2)
              .doc("Event-loop threads of the agent (serving and fetching share them).")
              .check(v -> v >= 1 && v <= 256, "between 1 and 256")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> SECRET_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.secretFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "File holding the cluster secret (at least 16 bytes; readable by its owner only, "
                      + "`chmod 600`). Agents and their clients prove they hold it by "
                      + "challenge-response before anything else happens on a connection; "
                      + "empty: no secret, every peer is admitted (the agent says so at start-up; "
                      + "docs/security.md).")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> MASTER_TOKEN_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.master.tokenFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "File holding the master's token (`coflow.master.auth.tokenFile` on the master; "
                      + "readable by its owner only): sent as a bearer token on every call to the "
                      + "master; empty: none.")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> MASTER_TRUST_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.master.tls.trustCertFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "PEM certificate (or CA) the master's TLS certificate must chain to; empty: "
                      + "plaintext to the master.")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> MASTER_CERT_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.master.tls.certFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "Mutual TLS: this client's PEM certificate for the master (with "
                      + "`coflow.courier.master.tls.keyFile`); empty: none.")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> MASTER_KEY_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.master.tls.keyFile", ConfigType.STRING)
              .defaultValue("")
              .doc("Mutual TLS: the PKCS#8 PEM key of `coflow.courier.master.tls.certFile`.")
              .since("0.1.0")
              .build());

  /** How an agent (or an engine's driver or task) proves itself to the master, from its keys. */
  public static org.coflow.api.client.MasterCredentials masterCredentials(Config agentConfig) {
    return org.coflow.api.client.MasterCredentials.fromFiles(
        agentConfig.get(MASTER_TOKEN_FILE),
        agentConfig.get(MASTER_TRUST_FILE),
        agentConfig.get(MASTER_CERT_FILE),
        agentConfig.get(MASTER_KEY_FILE));
  }

  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxConnections", ConfigType.INT)
              .defaultValue(4096)
              .doc(
                  "Accepted connections (clients and other agents) open at once; more are refused "
                      + "with a BUSY error. The agent holds at most half its process's open-file "
                      + "limit (`ulimit -n`), whatever this says.")
              .check(v -> v >= 1, "at least 1")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Integer> MAX_HANDSHAKING =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxHandshaking", ConfigType.INT)
              .defaultValue(256)
              .doc(
                  "Accepted connections that have not completed their handshake; more are refused "
                      + "with a BUSY error.")
              .check(v -> v >= 1, "at least 1")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Integer> MAX_HANDSHAKING_PER_ADDRESS =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxHandshakingPerAddress", ConfigType.INT)
              .defaultValue(64)
              .doc(
                  "Of the connections in their handshake, how many may come from one remote "
                      + "address (so that one host cannot take every slot); more are refused with "
                      + "a BUSY error.")
              .check(v -> v >= 1, "at least 1")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Integer> MAX_STREAMS_PER_CONNECTION =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxStreamsPerConnection", ConfigType.INT)
              .defaultValue(1024)
              .doc(
                  "Blocks one connection may have in flight at once; requests beyond it get a BUSY "
                      + "error per block.")
              .check(v -> v >= 1, "at least 1")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> MAX_BUFFERED_BYTES =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.maxBufferedBytes", ConfigType.BYTES)
              .defaultValue(64L << 20)
              .doc(
                  "Bytes the agent holds for its peers, twice: incomplete frames of accepted "
                      + "connections (read into the heap; the first 16k of each connection aside) "
                      + "and, separately, the windows of streams relayed to local clients, where "
                      + "one client identity holds at most cap / (holders + 1). A connection that "
                      + "would cross it is refused with a BUSY error, and a stream waits, instead "
                      + "of growing the process's memory.")
              .check(v -> v >= 1 << 20, "at least 1m")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> HANDSHAKE_TIMEOUT =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.handshakeTimeout", ConfigType.DURATION_MS)
              .defaultValue(5_000L)
              .doc(
                  "Time an accepted connection has to complete its handshake (a few round trips; "
                      + "a freshly started task JVM on a loaded host has taken over 2 s). A full "
                      + "set of handshake slots evicts its oldest connection for a newcomer, so "
                      + "silent connections never keep a peer out, whatever this is.")
              .check(v -> v >= 1, "positive")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> IDLE_TIMEOUT =
      REGISTRY.add(
          ConfigKey.builder("coflow.courier.idleTimeout", ConfigType.DURATION_MS)
              .defaultValue(1_800_000L)
              .doc(
                  "Time a connection without open streams (and, for a client, without "
                      + "registrations) may stay silent before it is closed; 0: never.")
              .check(v -> v >= 0, "zero or more")
              .since("0.1.0")
              .build());

  /**
   * The agent keys an engine's own configuration may set for the agents it embeds or hosts (Spark
   * executors, NodeManagers), under the engine's prefix: {@code <prefix>maxNum} is {@code
   * coflow.courier.maxNum}. Registers the engine's copies in {@code engine}.
   */
  public static Exposed exposeUnder(ConfigRegistry engine, String prefix) {
    return new Exposed(
        engine,
        prefix,
        List.of(
            MAX_NUM,
            MIN_SIZE,
            LANE,
            ADAPTIVE_MAX_NUM,
            ADAPTIVE_MAX,
            ADAPTIVE_INTERVAL,
            ADAPTIVE_LOSS,
            THREADS,
            SECRET_FILE,
            MASTER_TOKEN_FILE,
            MASTER_TRUST_FILE,
            MASTER_CERT_FILE,
            MASTER_KEY_FILE,
            MAX_CONNECTIONS,
            MAX_HANDSHAKING,
            MAX_HANDSHAKING_PER_ADDRESS,
            MAX_STREAMS_PER_CONNECTION,
            MAX_BUFFERED_BYTES,
            HANDSHAKE_TIMEOUT,
            IDLE_TIMEOUT));
  }

  /** Agent keys exposed under an engine's prefix, and how to read them back as agent settings. */
  public static final class Exposed {
    private final List<Pair<?>> pairs = new ArrayList<>();

    private Exposed(ConfigRegistry engine, String prefix, List<ConfigKey<?>> keys) {
      for (ConfigKey<?> k : keys) {
        pairs.add(Pair.of(engine, prefix, k));
      }
    }

    /** The agent's configuration ({@code coflow.courier.*}) as {@code engineConfig} sets it. */
    public Config agentConfig(Config engineConfig) {
      Config out = Config.defaults();
      for (Pair<?> p : pairs) {
        out = p.copy(engineConfig, out);
      }
      return out;
    }

    /** The engine's name of {@code agentKey}, e.g. for error messages. */
    public String engineKey(ConfigKey<?> agentKey) {
      for (Pair<?> p : pairs) {
        if (p.agent == agentKey) {
          return p.engine.key();
        }
      }
      throw new IllegalArgumentException(agentKey + " is not exposed to engines");
    }
  }

  private static final class Pair<T> {
    final ConfigKey<T> agent;
    final ConfigKey<T> engine;

    private Pair(ConfigKey<T> agent, ConfigKey<T> engine) {
      this.agent = agent;
      this.engine = engine;
    }

    static <T> Pair<T> of(ConfigRegistry registry, String prefix, ConfigKey<T> agent) {
      String name = agent.key().substring("coflow.courier.".length());
      return new Pair<>(
          agent,
          registry.add(
              agent.renamed(prefix + name, "The agent's `" + agent.key() + "`: " + agent.doc())));
    }

    Config copy(Config from, Config to) {
      return to.with(agent, from.get(engine));
    }
  }

  @Override
  public List<ConfigRegistry> registries() {
    return Collections.singletonList(REGISTRY);
  }
}
