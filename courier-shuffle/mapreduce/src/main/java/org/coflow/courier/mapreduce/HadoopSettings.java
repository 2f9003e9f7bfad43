package org.coflow.courier.mapreduce;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.coflow.core.config.Config;

/** The adapter's settings ({@link CourierMapReduceConfig}) out of a Hadoop configuration. */
final class HadoopSettings {
  private HadoopSettings() {}

  /**
   * Reads {@code mapreduce.shuffle.courier.*} and the deprecated {@code
   * coflow.courier.mapreduce.*}.
   *
   * @throws IllegalArgumentException naming an unknown key or a bad value
   */
  static Config of(Configuration conf) {
    Map<String, String> entries = new HashMap<>();
    for (String prefix :
        new String[] {CourierMapReduceConfig.DEPRECATED_PREFIX, CourierMapReduceConfig.PREFIX}) {
      conf.getPropsWithPrefix(prefix).forEach((k, v) -> entries.put(prefix + k, v));
    }
    return CourierMapReduceConfig.parse(entries);
  }
}
