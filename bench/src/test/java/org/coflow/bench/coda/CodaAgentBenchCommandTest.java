package org.coflow.bench.coda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.coflow.bench.cli.CodaAgentBenchCommand;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/coflow bench coda-agent} with small numbers, when the agent jar is built (the reactor
 * builds coda-agent before bench): both load JVMs run, the agent starts and reports to the master,
 * and the JSON carries positive figures. The timing goals are the benchmark's, not this test's.
 */
class CodaAgentBenchCommandTest {
  /** The project directory: the parent of bench, where surefire runs. */
  private static final Path HOME =
      Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
          .toAbsolutePath()
          .getParent();

  @Test
  void smallRunMeasuresBothJvmsAndTheAgentReports() throws Exception {
    assumeTrue(
        Files.isRegularFile(HOME.resolve(CodaAgentBench.JAR)),
        "no " + HOME.resolve(CodaAgentBench.JAR) + "; build it with " + CodaAgentBench.BUILD);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        CodaAgentBenchCommand.run(
            new String[] {"--connections", "8", "--seconds", "1", "--rounds", "1", "--json"},
            HOME,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String json = out.toString(StandardCharsets.UTF_8).trim();
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8) + json);
    assertTrue(json.startsWith("{") && json.endsWith("}"), json);
    assertEquals(8, number(json, "connections"), json);
    assertEquals(1, number(json, "rounds"), json);
    assertTrue(number(json, "throughput_ratio") > 0, json);
    assertTrue(number(json, "cpu_overhead") > -1, json);
    assertTrue(json.contains("\"order\":[\"plain,agent\"]"), json);
    for (String field :
        new String[] {
          "throughput_without_gb_per_s",
          "throughput_with_gb_per_s",
          "cpu_s_per_gb_without",
          "cpu_s_per_gb_with",
          "throughput_ratios"
        }) {
      assertTrue(first(json, field) > 0, field + " in " + json);
    }
    assertTrue(first(json, "master_flows_seen") >= 8, json);
    assertTrue(json.contains("\"throughput_ratio_met\":"), json);
    assertTrue(json.contains("\"cpu_overhead_met\":"), json);
  }

  @Test
  void missingJarIsNamedWithItsBuild() throws Exception {
    Path empty = Files.createTempDirectory("no-coda-agent");
    try {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          CodaAgentBenchCommand.run(
              new String[] {"--rounds", "1"},
              empty,
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      String text = err.toString(StandardCharsets.UTF_8);
      assertEquals(1, code, text);
      assertTrue(text.contains(empty.resolve(CodaAgentBench.JAR).toString()), text);
      assertTrue(text.contains(CodaAgentBench.BUILD), text);
    } finally {
      Files.delete(empty);
    }
  }

  private static double number(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.eE+-]+)").matcher(json);
    assertTrue(m.find(), field + " missing from " + json);
    return Double.parseDouble(m.group(1));
  }

  /** The first element of a numeric array. */
  private static double first(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":\\[(-?[0-9.eE+-]+)").matcher(json);
    assertTrue(m.find(), field + " missing from " + json);
    return Double.parseDouble(m.group(1));
  }
}
