package org.coflow.stress.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code bin/coflow bench master} as users call it. */
class LoadCommandTest extends CliHarness {
  @Test
  void badOptionsAreNamed() {
    assertEquals(2, run("bench", "master", "--agents", "two"));
    assertTrue(err().contains("'two'"), err());
  }

  @Test
  void loadGeneratorReportsTheDocumentedFields() {
    assertEquals(
        0,
        run(
            "bench",
            "master",
            "--agents",
            "3",
            "--flows",
            "300",
            "--seconds",
            "1",
            "--interval",
            "50",
            "--json"));
    String line = out().trim();
    for (String field :
        new String[] {
          "\"flows\":300",
          "\"agents\":3",
          "\"decision_p50_ms\":",
          "\"decision_p99_ms\":",
          "\"round_p99_ms\":",
          "\"kept_up\":",
          "\"interval_ms\":50"
        }) {
      assertTrue(line.contains(field), "missing " + field + " in " + line);
    }
    Matcher rounds = Pattern.compile("\"rounds\":(\\d+)").matcher(line);
    assertTrue(rounds.find() && Integer.parseInt(rounds.group(1)) > 0, line);
  }
}
