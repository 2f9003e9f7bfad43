package org.coflow.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.coflow.core.config.ConfigDocs;
import org.junit.jupiter.api.Test;

/** docs/configuration.md must be what the registries generate: regenerate with bin/coflow docs. */
class ConfigurationDocsTest {
  @Test
  void configurationDocsAreCurrent() throws Exception {
    Path file = Path.of("..", "docs", "configuration.md");
    String expected = ConfigDocs.render(ConfigDocs.discover());
    assertTrue(
        expected.contains("coflow.policy.delta") && expected.contains("coflow.courier.maxNum"));
    assertTrue(Files.exists(file), file + " is missing: run bin/coflow docs");
    assertEquals(
        expected, Files.readString(file), "docs/configuration.md is stale: run bin/coflow docs");
  }
}
