package org.apache.spark.shuffle.courier;

import java.util.Collections;
import java.util.List;
import org.coflow.core.config.ConfigKey;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.ConfigType;
import org.coflow.courier.CourierConfig;

/** The Spark plugin's keys ({@code spark.shuffle.courier.*}), set with {@code --conf}. */
public final class CourierSparkConfig implements ConfigRegistry.Provider {
  static final String PREFIX = "spark.shuffle.courier.";

  public static final ConfigRegistry REGISTRY =
      new ConfigRegistry(
          "Spark plugin",
          "Keys of `CourierShuffleManager`, set like any Spark property (`--conf spark.shuffle.courier.…=…`); "
              + "with none set, every executor embeds its own agent and no master is used.");

  public static final ConfigKey<Boolean> ENABLED =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "enabled", ConfigType.BOOLEAN)
              .defaultValue(true)
              .doc(
                  "Fetch shuffle blocks through the Courier agents; false reads every shuffle with Spark's "
                      + "own fetch (the writer is Spark's sort shuffle either way).")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> AGENT =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "agent", ConfigType.STRING)
              .defaultValue("embedded")
              .doc(
                  "`embedded`: each executor starts its own agent (its host id is the executor id), so "
                      + "every executor of a `local-cluster` is its own host; a port, for the agent "
                      + "running at that port on each executor's own host (its block-manager address; "
                      + "`bin/coflow agent --host-id` that address); or `host:port` of the agent "
                      + "already running on the executor's machine.")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Double> LINK_RATE =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "linkRate", ConfigType.BIT_RATE)
              .defaultValue(0.0)
              .doc(
                  "Embedded agents only: cap on what each agent sends and receives (e.g. 200m); 0 is no cap.")
              .check(v -> v >= 0, "zero or more")
              .since("0.1.0")
              .build());

  public static final ConfigKey<String> MASTER =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "master", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "The coflow master as host:port: the driver registers each shuffle as a coflow and "
                      + "embedded agents report to it; empty: no master (data moves all the same).")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> MAX_BYTES_IN_FLIGHT =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "maxBytesInFlight", ConfigType.BYTES)
              .defaultValue(48L << 20)
              .doc(
                  "Bytes of remote blocks a reduce task has requested and not yet read (as "
                      + "`spark.reducer.maxSizeInFlight`); a larger block is fetched alone.")
              .check(v -> v >= (64 << 10), "at least 64k")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> MAX_BLOCK_IN_MEMORY =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "maxBlockInMemory", ConfigType.BYTES)
              .defaultValue(64L << 20)
              .doc(
                  "Remote blocks larger than this are written by the agent into a file in the executor's "
                      + "local directories and read from there, not held in memory.")
              .check(v -> v >= 0, "zero or more")
              .since("0.1.0")
              .build());

  public static final ConfigKey<Long> FETCH_TIMEOUT =
      REGISTRY.add(
          ConfigKey.builder(PREFIX + "fetchTimeout", ConfigType.DURATION_MS)
              .defaultValue(120_000L)
              .doc(
                  "How long a reduce task waits for a block that shows no progress before the fetch fails "
                      + "(Spark then reruns the map stage).")
              .check(v -> v > 0, "positive")
              .since("0.1.0")
              .build());

  /**
   * The agent's own keys ({@code coflow.courier.maxNum}, {@code minSize}, {@code threads}) for
   * embedded agents, as {@code spark.shuffle.courier.maxNum} and so on.
   */
  public static final CourierConfig.Exposed AGENT_KEYS =
      CourierConfig.exposeUnder(REGISTRY, PREFIX);

  @Override
  public List<ConfigRegistry> registries() {
    return Collections.singletonList(REGISTRY);
  }
}
