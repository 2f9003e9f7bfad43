package org.coflow.courier;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.coflow.core.config.Config;
import org.coflow.core.config.ConfigKey;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.KeyRing;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.transport.Limits;

/**
 * Everything an agent is built from: its host id, where it listens, and its settings from the typed
 * registry ({@link CourierConfig}: {@code coflow.courier.*}), whoever starts it (the daemon, a
 * Spark executor, a NodeManager, a test). Only the host id is required; every setting not given has
 * its registry default.
 *
 * <pre>
 * CourierAgent.start(AgentOptions.forHost("exec-1").bind(new InetSocketAddress("127.0.0.1", 0))
 *     .config(cfg).set(CourierConfig.MAX_NUM, 2));
 * </pre>
 */
public final class AgentOptions {
  private final String hostId;
  private InetSocketAddress bind;
  private Config config = Config.defaults();
  private LinkRate link;
  private String engineAddress = "";
  private final List<Path> extraRoots = new ArrayList<>();
  private Credentials credentials;
  private KeyRing keys;
  private boolean clientRegistrations;

  private AgentOptions(String hostId) {
    if (hostId == null || hostId.isEmpty()) {
      throw new IllegalArgumentException("an agent needs a host id");
    }
    this.hostId = hostId;
  }

  /** Options of the agent of {@code hostId}, every setting at its default. */
  public static AgentOptions forHost(String hostId) {
    return new AgentOptions(hostId);
  }

  /**
   * Where to listen (port 0: any free port); default: every interface at {@code
   * coflow.courier.port}.
   */
  public AgentOptions bind(InetSocketAddress address) {
    this.bind = Objects.requireNonNull(address);
    return this;
  }

  /** The agent's {@code coflow.courier.*} settings (replacing any set before). */
  public AgentOptions config(Config settings) {
    this.config = Objects.requireNonNull(settings);
    return this;
  }

  /** One setting, checked as the registry says. */
  public <T> AgentOptions set(ConfigKey<T> key, T value) {
    this.config = config.with(key, value);
    return this;
  }

  /**
   * The link cap as an explicit bucket (tests that need an exact burst); default: {@code
   * coflow.courier.linkRate} with the usual slack ({@link LinkRate#withSlack}).
   */
  public AgentOptions link(LinkRate rate) {
    this.link = Objects.requireNonNull(rate);
    return this;
  }

  /**
   * An engine address registered with the master beside the agent's own (MapReduce: the
   * NodeManager's shuffle host:port, by which readers find this agent in the master's registry).
   */
  public AgentOptions engineAddress(String address) {
    this.engineAddress = Objects.requireNonNull(address);
    return this;
  }

  /**
   * Directories the agent serves besides {@code coflow.courier.dirs}: what its host process owns (a
   * Spark executor's block-manager directories, a NodeManager's local directories).
   */
  public AgentOptions roots(List<Path> dirs) {
    extraRoots.addAll(dirs);
    return this;
  }

  /**
   * What the agent proves when it connects to other agents, and the only secret it accepts proofs
   * of (besides any added to {@link #keys}); default: the cluster secret of {@code
   * coflow.courier.secretFile}, or none.
   */
  public AgentOptions credentials(Credentials credentials) {
    this.credentials = Objects.requireNonNull(credentials);
    return this;
  }

  /**
   * The secrets peers may prove (default: those of {@link #credentials}; open when there are none).
   * A NodeManager adds each job's token to it while the job runs.
   */
  public AgentOptions keys(KeyRing ring) {
    this.keys = Objects.requireNonNull(ring);
    return this;
  }

  /**
   * Whether local processes may register block sets over a client connection (a standalone agent);
   * otherwise only the process hosting the agent registers, in-process (default).
   */
  public AgentOptions clientRegistrations(boolean accept) {
    this.clientRegistrations = accept;
    return this;
  }

  public String hostId() {
    return hostId;
  }

  /** What the agent proves (see {@link #credentials(Credentials)}). */
  public Credentials credentials() {
    if (credentials == null) {
      credentials = clusterCredentials();
    }
    return credentials;
  }

  /**
   * The cluster secret of {@code coflow.courier.secretFile} as credentials (none if unset),
   * whatever {@link #credentials(Credentials)} set: what a process proves to its host's standalone
   * agent.
   */
  public Credentials clusterCredentials() {
    String file = config.get(CourierConfig.SECRET_FILE);
    return file.isEmpty()
        ? Credentials.NONE
        : Credentials.of(
            Credentials.CLUSTER, Secret.fromFile(Path.of(file), CourierConfig.SECRET_FILE.key()));
  }

  KeyRing keys() {
    if (keys == null) {
      Credentials c = credentials();
      keys = c.present() ? KeyRing.closed().add(c.identity(), c.secret()) : KeyRing.open();
    }
    return keys;
  }

  boolean clientRegistrations() {
    return clientRegistrations;
  }

  Limits limits() {
    return new Limits(
        Limits.withinDescriptors(
            config.get(CourierConfig.MAX_CONNECTIONS), Limits.maxFileDescriptors()),
        config.get(CourierConfig.MAX_HANDSHAKING),
        config.get(CourierConfig.MAX_HANDSHAKING_PER_ADDRESS),
        config.get(CourierConfig.MAX_STREAMS_PER_CONNECTION),
        config.get(CourierConfig.MAX_BUFFERED_BYTES),
        config.get(CourierConfig.HANDSHAKE_TIMEOUT),
        config.get(CourierConfig.IDLE_TIMEOUT));
  }

  InetSocketAddress bindAddress() {
    return bind != null ? bind : new InetSocketAddress(config.get(CourierConfig.PORT));
  }

  int threads() {
    return config.get(CourierConfig.THREADS);
  }

  int maxNum() {
    return config.get(CourierConfig.MAX_NUM);
  }

  double minSize() {
    return config.get(CourierConfig.MIN_SIZE);
  }

  long lane() {
    return config.get(CourierConfig.LANE);
  }

  boolean merge() {
    return config.get(CourierConfig.MERGE);
  }

  /** The adaptive MaxNum rule starting from {@code coflow.courier.maxNum}, or null if off. */
  org.coflow.courier.adapt.AdaptiveMaxNum adaptiveMaxNum() {
    return config.get(CourierConfig.ADAPTIVE_MAX_NUM)
        ? new org.coflow.courier.adapt.AdaptiveMaxNum(
            maxNum(),
            config.get(CourierConfig.ADAPTIVE_MAX),
            config.get(CourierConfig.ADAPTIVE_LOSS))
        : null;
  }

  long adaptiveIntervalMillis() {
    return config.get(CourierConfig.ADAPTIVE_INTERVAL);
  }

  LinkRate linkRate() {
    return link != null
        ? link
        : LinkRate.withSlack(config.get(CourierConfig.LINK_RATE), CourierAgent.CHUNK_SIZE);
  }

  /** How the agent proves itself to the master (token, TLS), from its keys. */
  org.coflow.api.client.MasterCredentials masterCredentials() {
    return CourierConfig.masterCredentials(config);
  }

  /** The master's host:port, or null for none. */
  String master() {
    String m = config.get(CourierConfig.MASTER);
    return m.isEmpty() ? null : m;
  }

  /** Directories registrations must lie inside (none: nothing is served). */
  List<Path> roots() {
    List<Path> dirs = new ArrayList<>(extraRoots);
    for (String d : config.get(CourierConfig.DIRS).split(",")) {
      if (!d.isBlank()) {
        dirs.add(Path.of(d.trim()));
      }
    }
    return dirs;
  }

  String engineAddress() {
    return engineAddress;
  }
}
