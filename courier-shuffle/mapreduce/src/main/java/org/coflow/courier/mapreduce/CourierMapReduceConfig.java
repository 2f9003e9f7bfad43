package org.coflow.courier.mapreduce;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.config.Config;
import org.coflow.core.config.ConfigKey;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.ConfigType;
import org.coflow.courier.CourierConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MapReduce adapter's keys ({@code mapreduce.shuffle.courier.*}, beside Hadoop's own {@code
 * mapreduce.shuffle.*}): the NodeManager's in {@code yarn-site.xml}, the reducers' in {@code
 * mapred-site.xml} or the job's configuration. The agent port and master must be the same on both
 * sides. The names of 0.1 ({@code coflow.courier.mapreduce.*}) still work, with a warning naming
 * the new key. Free of Hadoop classes, so that the documentation can list it anywhere.
 */
public final class CourierMapReduceConfig implements ConfigRegistry.Provider {
  public static final String PREFIX = "mapreduce.shuffle.courier.";

  /**
   * The prefix of 0.1, still read: {@code coflow.courier.mapreduce.X} is {@code
   * mapreduce.shuffle.courier.X}.
   */
  public static final String DEPRECATED_PREFIX = "coflow.courier.mapreduce.";

  private static final Logger LOG = LoggerFactory.getLogger(CourierMapReduceConfig.class);

  public static final ConfigRegistry REGISTRY =
      new ConfigRegistry(
          "MapReduce adapter",
          "Keys of `CourierShuffleHandler` (NodeManager, `yarn-site.xml`) and of the reducers' "
              + "`CourierShuffle` (`mapred-site.xml` or the job); see docs/mapreduce.md. The names of 0.1, "
              + "`coflow.courier.mapreduce.*`, are deprecated aliases: still read, with a warning.");

  public static final ConfigKey<Boolean> ENABLED =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "enabled", ConfigType.BOOLEAN)
              .defaultValue(true)
              .doc(
                  "Reducers: fetch map outputs through the Courier agents; false uses Hadoop's own HTTP "
                      + "fetch (the plugin then behaves exactly as the stock shuffle).")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Integer> AGENT_PORT =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "agent.port", ConfigType.INT)
              .defaultValue(13563)
              .doc(
                  "The port of every NodeManager's agent, cluster-wide (as `mapreduce.shuffle.port` is "
                      + "for the stock shuffle): reducers reach a map host's agent at that host and this port. "
                      + "0 binds any free port, for several NodeManagers on one machine (tests): readers then "
                      + "find each agent in the master's registry by its NodeManager's shuffle address, so "
                      + "`mapreduce.shuffle.courier.master` must be set.")
              .check(v -> v >= 0 && v <= 65535, "a port, 0 to 65535")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> MASTER =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "master", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "The coflow master as host:port: NodeManager agents report their flows (one coflow per "
                      + "job) and take its schedule; reducers look agents up there when the agent port is 0. "
                      + "Empty: no master (data moves all the same).")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Double> LINK_RATE =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "linkRate", ConfigType.BIT_RATE)
              .defaultValue(0.0)
              .doc("NodeManager: cap on what its agent sends and receives (e.g. 1g); 0 is no cap.")
              .check(v -> v >= 0, "zero or more")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> WINDOW =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "window", ConfigType.BYTES)
              .defaultValue(1L << 20)
              .doc(
                  "Reducers: bytes of a map output the agent may send ahead of what the reducer has "
                      + "merged (flow control per fetch).")
              .check(v -> v >= (64 << 10), "at least 64k")
              .since("0.1.0")
              .build());

  /**
   * The agent's own keys ({@code coflow.courier.maxNum}, {@code minSize}, {@code threads}) for the
   * NodeManager's agent, as {@code mapreduce.shuffle.courier.maxNum} and so on.
   */
  public static final CourierConfig.Exposed AGENT_KEYS =
      CourierConfig.exposeUnder(REGISTRY, PREFIX);

  /**
   * Parses the adapter's entries out of a Hadoop configuration's key/values (any other keys are
   * ignored); an unknown key or a bad value fails, named. A deprecated name is read as its new one,
   * with a warning; where both are set, the new one wins.
   */
  public static Config parse(Map<String, String> entries) {
    Map<String, String> raw = new HashMap<>();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      if (e.getKey().startsWith(DEPRECATED_PREFIX)) {
        String renamed = PREFIX + e.getKey().substring(DEPRECATED_PREFIX.length());
        LOG.warn("Courier: configuration key {} is deprecated; use {}", e.getKey(), renamed);
        if (!entries.containsKey(renamed)) {
          raw.put(renamed, e.getValue());
        }
      } else if (e.getKey().startsWith(PREFIX)) {
        raw.put(e.getKey(), e.getValue());
      }
    }
    return Config.parse(raw, List.of(PREFIX), REGISTRY);
  }

  @Override
  public List<ConfigRegistry> registries() {
    return Collections.singletonList(REGISTRY);
  }
}
