package org.coflow.core.config;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * One typed configuration key: its name, type, default, documentation and the release that added
 * it. Keys are declared once, as constants of a component's registry class, and read only through
 * {@link Config#get(ConfigKey)}.
 *
 * @param <T> the Java type of the value
 */
public final class ConfigKey<T> {
  private final String key;
  private final ConfigType<T> type;
  private final T defaultValue;
  private final String doc;
  private final String since;
  private final Predicate<T> check;
  private final String checkDoc;

  private ConfigKey(Builder<T> b) {
    this.key = b.key;
    this.type = b.type;
    this.defaultValue = b.defaultValue;
    this.doc = b.doc;
    this.since = b.since;
    this.check = b.check;
    this.checkDoc = b.checkDoc;
    if (defaultValue != null && !check.test(defaultValue)) {
      throw new IllegalStateException("default of " + key + " violates its own check: " + checkDoc);
    }
  }

  public static <T> Builder<T> builder(String key, ConfigType<T> type) {
    return new Builder<>(key, type);
  }

  public String key() {
    return key;
  }

  public ConfigType<T> type() {
    return type;
  }

  public T defaultValue() {
    return defaultValue;
  }

  public String doc() {
    return doc;
  }

  public String since() {
    return since;
  }

  /** Describes the valid range, or "" when every value of the type is valid. */
  public String checkDoc() {
    return checkDoc;
  }

  /**
   * Parses and validates {@code text}; the message names the key, the value and what is expected.
   */
  public T parse(String text) {
    T value;
    try {
      value = type.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid value '" + text + "' for " + key + ": " + e.getMessage(), e);
    }
    validate(value);
    return value;
  }

  void validate(T value) {
    if (!check.test(value)) {
      throw new IllegalArgumentException(
          "invalid value '" + type.format(value) + "' for " + key + ": must be " + checkDoc);
    }
  }

  /**
   * This key under another name, with the same type, default and check: how an engine exposes a
   * component's key under its own prefix (the Spark plugin's {@code spark.shuffle.courier.maxNum}
   * is the agent's {@code coflow.courier.maxNum}).
   */
  public ConfigKey<T> renamed(String newKey, String newDoc) {
    Builder<T> b =
        new Builder<>(newKey, type)
            .defaultValue(defaultValue)
            .doc(newDoc)
            .since(since)
            .check(check, checkDoc);
    return b.build();
  }

  @Override
  public String toString() {
    return key;
  }

  /** Builds a key; {@link #doc(String)} and {@link #since(String)} are required. */
  public static final class Builder<T> {
    private final String key;
    private final ConfigType<T> type;
    private T defaultValue;
    private String doc;
    private String since;
    private Predicate<T> check = v -> true;
    private String checkDoc = "";

    private Builder(String key, ConfigType<T> type) {
      this.key = Objects.requireNonNull(key);
      this.type = Objects.requireNonNull(type);
    }

    public Builder<T> defaultValue(T value) {
      this.defaultValue = value;
      return this;
    }

    public Builder<T> doc(String text) {
      this.doc = text;
      return this;
    }

    public Builder<T> since(String version) {
      this.since = version;
      return this;
    }

    /** A constraint beyond the type, e.g. "a positive number", checked on every value. */
    public Builder<T> check(Predicate<T> predicate, String description) {
      this.check = predicate;
      this.checkDoc = description;
      return this;
    }

    public ConfigKey<T> build() {
      if (doc == null || doc.isBlank()) {
        throw new IllegalStateException("config key " + key + " needs a doc");
      }
      if (since == null) {
        throw new IllegalStateException("config key " + key + " needs a since version");
      }
      return new ConfigKey<>(this);
    }
  }
}
