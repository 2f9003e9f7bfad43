package org.coflow.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigTest {
  static final ConfigRegistry R = new ConfigRegistry("test", "keys for tests");
  static final ConfigKey<Long> SIZE =
      R.add(
          ConfigKey.builder("coflow.test.size", ConfigType.BYTES)
              .defaultValue(4L << 20)
              .doc("a size")
              .check(v -> v > 0, "positive")
              .since("0.1.0")
              .build());
  static final ConfigKey<Long> WAIT =
      R.add(
          ConfigKey.builder("coflow.test.wait", ConfigType.DURATION_MS)
              .defaultValue(100L)
              .doc("a wait")
              .since("0.1.0")
              .build());
  static final ConfigKey<String> MODE =
      R.add(
          ConfigKey.builder("coflow.test.mode", ConfigType.oneOf("a", "b"))
              .defaultValue("a")
              .doc("a mode")
              .since("0.1.0")
              .build());

  @Test
  void defaultsWhenUnset() {
    Config c = Config.parse(Map.of(), List.of("coflow."), R);
    assertEquals(4L << 20, c.get(SIZE));
    assertEquals(100L, c.get(WAIT));
  }

  @Test
  void parsesUnits() {
    Config c =
        Config.parse(
            Map.of("coflow.test.size", "64k", "coflow.test.wait", "2s", "coflow.test.mode", "B"),
            List.of("coflow."),
            R);
    assertEquals(65536L, c.get(SIZE));
    assertEquals(2000L, c.get(WAIT));
    assertEquals("b", c.get(MODE));
    assertEquals(125_000_000.0, Units.parseBitRate("1g"));
    assertEquals(12_500_000.0, Units.parseBitRate("100mbps"));
    assertEquals("1g", Units.formatBitRate(125_000_000));
    assertEquals("4m", Units.formatBytes(4L << 20));
  }

  @Test
  void badValueNamesKeyValueAndExpectation() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Config.parse(Map.of("coflow.test.size", "lots"), List.of("coflow."), R));
    assertTrue(
        e.getMessage().contains("coflow.test.size")
            && e.getMessage().contains("'lots'")
            && e.getMessage().contains("byte count"),
        e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Config.parse(Map.of("coflow.test.size", "0"), List.of("coflow."), R));
    assertTrue(e.getMessage().contains("must be positive"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Config.parse(Map.of("coflow.test.mode", "c"), List.of("coflow."), R));
    assertTrue(e.getMessage().contains("one of a, b"), e.getMessage());
  }

  @Test
  void unknownKeyInOwnNamespaceIsRejectedOthersPass() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Config.parse(Map.of("coflow.test.sise", "1"), List.of("coflow."), R));
    assertTrue(
        e.getMessage().contains("coflow.test.sise") && e.getMessage().contains("coflow.test.size"),
        e.getMessage());
    Config c = Config.parse(Map.of("spark.executor.memory", "1g"), List.of("coflow."), R);
    assertEquals(4L << 20, c.get(SIZE));
  }

  @Test
  void docsListEveryKeyWithDefaultAndConstraint() {
    String md = ConfigDocs.render(List.of(R));
    assertTrue(
        md.contains("| `coflow.test.size` | bytes | `4m` | 0.1.0 | a size Must be positive. |"),
        md);
    assertTrue(md.contains("`coflow.test.wait`") && md.contains("`100ms`"), md);
  }

  @Test
  void keysNeedDocsAndValidDefaults() {
    assertThrows(
        IllegalStateException.class,
        () -> ConfigKey.builder("k", ConfigType.INT).defaultValue(1).since("0.1.0").build());
    assertThrows(
        IllegalStateException.class,
        () ->
            ConfigKey.builder("k", ConfigType.INT)
                .defaultValue(-1)
                .doc("d")
                .since("0.1.0")
                .check(v -> v > 0, "positive")
                .build());
    assertThrows(IllegalStateException.class, () -> R.add(SIZE));
  }
}
