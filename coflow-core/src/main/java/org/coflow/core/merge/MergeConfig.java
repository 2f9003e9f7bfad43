package org.coflow.core.merge;

import org.coflow.core.config.ConfigKey;
import org.coflow.core.config.ConfigType;

/**
 * The two parameters of Courier's merge rules (Alg. 3), shared by the agent, which registers them
 * among its keys, and the simulator, which replays the same rules.
 */
public final class MergeConfig {
  private MergeConfig() {}

  public static final ConfigKey<Integer> MAX_NUM =
      ConfigKey.builder("coflow.courier.maxNum", ConfigType.INT)
          .defaultValue(8)
          .doc(
              "MaxNum (Courier Alg. 3): the most data connections a host's agent holds. With more peers, "
                  + "the most important unified flows are served first; with fewer, the most important ones "
                  + "are split.")
          .check(v -> v >= 1, "at least 1")
          .since("0.1.0")
          .build();

  public static final ConfigKey<Long> MIN_SIZE =
      ConfigKey.builder("coflow.courier.minSize", ConfigType.BYTES)
          .defaultValue(4L << 20)
          .doc(
              "MinSize (Courier Alg. 3): unified flows of at most this many bytes are never split.")
          .check(v -> v >= 0, "zero or more")
          .since("0.1.0")
          .build();
}
