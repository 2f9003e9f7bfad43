package org.coflow.courier;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.coflow.api.config.Config;
import org.coflow.api.config.ConfigKey;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.merge.CourierConfig;

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

  public String hostId() {
    return hostId;
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

  LinkRate linkRate() {
    return link != null
        ? link
        : LinkRate.withSlack(config.get(CourierConfig.LINK_RATE), CourierAgent.CHUNK_SIZE);
  }

  /** The master's host:port, or null for none. */
  String master() {
    String m = config.get(CourierConfig.MASTER);
    return m.isEmpty() ? null : m;
  }

  /** Directories registrations must lie inside (empty: any). */
  List<Path> roots() {
    List<Path> dirs = new ArrayList<>();
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
