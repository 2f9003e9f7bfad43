package org.coflow.courier.merge;

import java.util.Collections;
import java.util.List;
import org.coflow.api.config.ConfigKey;
import org.coflow.api.config.ConfigRegistry;
import org.coflow.api.config.ConfigType;

/** Configuration keys of Courier's flow merging (the agent adds its own as it grows). */
public final class CourierConfig implements ConfigRegistry.Provider {
  public static final ConfigRegistry REGISTRY = new ConfigRegistry("Courier agent",
      "Keys of the per-host Courier agent (`coflow.courier.*`), also used by `bin/coflow sim --courier`.");

  public static final ConfigKey<Integer> MAX_NUM = REGISTRY.add(ConfigKey
      .builder("coflow.courier.maxNum", ConfigType.INT)
      .defaultValue(8)
      .doc("MaxNum (Courier Alg. 3): the most data connections a host's agent holds. With more peers, "
          + "the most important unified flows are served first; with fewer, the most important ones "
          + "are split.")
      .check(v -> v >= 1, "at least 1")
      .since("0.1.0").build());

  public static final ConfigKey<Long> MIN_SIZE = REGISTRY.add(ConfigKey
      .builder("coflow.courier.minSize", ConfigType.BYTES)
      .defaultValue(4L << 20)
      .doc("MinSize (Courier Alg. 3): unified flows of at most this many bytes are never split.")
      .check(v -> v >= 0, "zero or more")
      .since("0.1.0").build());

  @Override
  public List<ConfigRegistry> registries() {
    return Collections.singletonList(REGISTRY);
  }
}
