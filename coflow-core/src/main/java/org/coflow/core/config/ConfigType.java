package org.coflow.core.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * How a configuration value is written and read. Every parser throws {@link
 * IllegalArgumentException} with a message that says what form is expected; the caller adds the key
 * and the offending value.
 *
 * @param <T> the Java type of the parsed value
 */
public abstract class ConfigType<T> {
  private final String name;

  private ConfigType(String name) {
    this.name = name;
  }

  /** Name shown in the generated documentation. */
  public String name() {
    return name;
  }

  public abstract T parse(String text);

  /** The canonical text of a value, as the documentation shows defaults. */
  public String format(T value) {
    return String.valueOf(value);
  }

  public static final ConfigType<Integer> INT =
      new ConfigType<>("int") {
        @Override
        public Integer parse(String text) {
          try {
            return Integer.parseInt(text.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number");
          }
        }
      };

  public static final ConfigType<Double> DOUBLE =
      new ConfigType<>("double") {
        @Override
        public Double parse(String text) {
          try {
            double v = Double.parseDouble(text.trim());
            if (Double.isNaN(v) || Double.isInfinite(v)) {
              throw new NumberFormatException();
            }
            return v;
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a finite number");
          }
        }
      };

  public static final ConfigType<Boolean> BOOLEAN =
      new ConfigType<>("boolean") {
        @Override
        public Boolean parse(String text) {
          String t = text.trim().toLowerCase(Locale.ROOT);
          if (t.equals("true")) {
            return true;
          }
          if (t.equals("false")) {
            return false;
          }
          throw new IllegalArgumentException("expected true or false");
        }
      };

  public static final ConfigType<String> STRING =
      new ConfigType<>("string") {
        @Override
        public String parse(String text) {
          return text;
        }
      };

  /** A byte count: a plain number of bytes or a number with k, m, g, t (binary: 1m = 2^20). */
  public static final ConfigType<Long> BYTES =
      new ConfigType<>("bytes") {
        @Override
        public Long parse(String text) {
          return Units.parseBytes(text);
        }

        @Override
        public String format(Long value) {
          return Units.formatBytes(value);
        }
      };

  /**
   * A duration: a number with ms or s (a plain number means milliseconds). Parsed to milliseconds.
   */
  public static final ConfigType<Long> DURATION_MS =
      new ConfigType<>("duration") {
        @Override
        public Long parse(String text) {
          return Units.parseMillis(text);
        }

        @Override
        public String format(Long value) {
          return value % 1000 == 0 && value != 0 ? (value / 1000) + "s" : value + "ms";
        }
      };

  /**
   * A link rate in bytes per second, written in bits per second with a decimal suffix as network
   * people do: {@code 1g} = 1 Gbit/s = 125,000,000 bytes/s; {@code 100m}, {@code 10g}.
   */
  public static final ConfigType<Double> BIT_RATE =
      new ConfigType<>("bit rate") {
        @Override
        public Double parse(String text) {
          return Units.parseBitRate(text);
        }

        @Override
        public String format(Double value) {
          return Units.formatBitRate(value);
        }
      };

  /** One of a fixed set of lower-case words. */
  public static ConfigType<String> oneOf(String... values) {
    List<String> allowed = Collections.unmodifiableList(Arrays.asList(values));
    return new ConfigType<>("one of " + String.join(", ", allowed)) {
      @Override
      public String parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (!allowed.contains(t)) {
          throw new IllegalArgumentException("expected one of " + String.join(", ", allowed));
        }
        return t;
      }
    };
  }
}
