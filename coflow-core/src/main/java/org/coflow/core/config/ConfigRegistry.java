package org.coflow.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * All configuration keys of one component (the master's policies, the Courier agent, the simulator,
 * ...). Each component declares one registry; {@link ConfigDocs} renders all of them into {@code
 * docs/configuration.md}.
 *
 * <p>Modules announce their registries to the documentation generator through {@code
 * META-INF/services/org.coflow.core.config.ConfigRegistry$Provider}.
 */
public final class ConfigRegistry {
  private final String component;
  private final String description;
  private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();

  public ConfigRegistry(String component, String description) {
    this.component = component;
    this.description = description;
  }

  /**
   * Registers a key; returns it so it can be a constant: {@code static final ConfigKey<..> K =
   * R.add(...)}.
   */
  public <T> ConfigKey<T> add(ConfigKey<T> key) {
    if (keys.putIfAbsent(key.key(), key) != null) {
      throw new IllegalStateException(
          "config key " + key.key() + " registered twice in " + component);
    }
    return key;
  }

  public String component() {
    return component;
  }

  public String description() {
    return description;
  }

  public List<ConfigKey<?>> keys() {
    return Collections.unmodifiableList(new ArrayList<>(keys.values()));
  }

  public ConfigKey<?> find(String key) {
    return keys.get(key);
  }

  /** Supplies a module's registries to the documentation generator (java.util.ServiceLoader). */
  public interface Provider {
    List<ConfigRegistry> registries();
  }
}
