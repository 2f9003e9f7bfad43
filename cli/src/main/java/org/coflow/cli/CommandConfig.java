package org.coflow.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.ConfigDocs;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.UsageException;

/** A service command's configuration: {@code --config FILE}'s keys, then its options, checked. */
public final class CommandConfig {
  private CommandConfig() {}

  /**
   * @param options command-line option name -> the configuration key it sets
   * @throws UsageException for an unreadable file, an unknown key or a bad value
   */
  public static Config load(String command, Args a, Map<String, String> options)
      throws UsageException, IOException {
    Map<String, String> raw = new HashMap<>();
    if (a.has("config")) {
      Path file = Path.of(a.get("config", ""));
      if (!Files.isReadable(file)) {
        throw new UsageException(
            command
                + ": cannot read --config "
                + file
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
    for (Map.Entry<String, String> o : options.entrySet()) {
      if (a.has(o.getKey())) {
        raw.put(o.getValue(), a.get(o.getKey(), ""));
      }
    }
    List<ConfigRegistry> registries = ConfigDocs.discover();
    try {
      return Config.parse(raw, List.of("coflow."), registries.toArray(new ConfigRegistry[0]));
    } catch (IllegalArgumentException e) {
      throw new UsageException(command + ": " + e.getMessage());
    }
  }
}
