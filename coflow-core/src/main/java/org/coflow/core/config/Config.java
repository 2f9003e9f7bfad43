package org.coflow.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Parsed configuration values for a set of registries. Values are parsed and validated when the
 * configuration is built, so a bad value fails at start-up with the key and value named, never
 * later in a data path.
 *
 * <p>Keys under a registry's namespace that no registry declares are rejected (a typo must not be
 * silently ignored); keys of other namespaces (another component's) pass through untouched.
 */
public final class Config {
  private final Map<String, Object> values;

  private Config(Map<String, Object> values) {
    this.values = values;
  }

  /** A configuration with every key at its default. */
  public static Config defaults() {
    return new Config(Collections.emptyMap());
  }

  /**
   * Parses {@code raw} against {@code registries}.
   *
   * @param namespaces key prefixes owned by these registries, e.g. {@code "coflow."}; an undeclared
   *     key under one of them is an error
   * @throws IllegalArgumentException naming the key and value, with the valid keys for a typo
   */
  public static Config parse(
      Map<String, String> raw, List<String> namespaces, ConfigRegistry... registries) {
    Map<String, Object> values = new HashMap<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      ConfigKey<?> key = null;
      for (ConfigRegistry r : registries) {
        key = r.find(e.getKey());
        if (key != null) {
          break;
        }
      }
      if (key == null) {
        for (String ns : namespaces) {
          if (e.getKey().startsWith(ns)) {
            throw new IllegalArgumentException(
                "unknown configuration key '"
                    + e.getKey()
                    + "'; valid keys: "
                    + String.join(", ", keyNames(registries)));
          }
        }
        continue;
      }
      values.put(key.key(), key.parse(e.getValue()));
    }
    return new Config(values);
  }

  /**
   * Same as {@link #parse(Map, List, ConfigRegistry...)} for a {@link Properties} file's content.
   */
  public static Config parse(
      Properties props, List<String> namespaces, ConfigRegistry... registries) {
    Map<String, String> raw = new HashMap<>();
    for (String name : props.stringPropertyNames()) {
      raw.put(name, props.getProperty(name));
    }
    return parse(raw, namespaces, registries);
  }

  private static List<String> keyNames(ConfigRegistry... registries) {
    List<String> names = new ArrayList<>();
    for (ConfigRegistry r : registries) {
      for (ConfigKey<?> k : r.keys()) {
        names.add(k.key());
      }
    }
    return names;
  }

  @SuppressWarnings("unchecked")
  public <T> T get(ConfigKey<T> key) {
    Object v = values.get(key.key());
    return v != null ? (T) v : key.defaultValue();
  }

  /** A copy with {@code key} set to {@code value} (validated), for programmatic overrides. */
  public <T> Config with(ConfigKey<T> key, T value) {
    key.validate(value);
    Map<String, Object> copy = new HashMap<>(values);
    copy.put(key.key(), value);
    return new Config(copy);
  }
}
