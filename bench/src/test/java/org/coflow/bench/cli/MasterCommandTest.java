package org.coflow.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/coflow master} and {@code bin/coflow bench master} as users call them. */
class MasterCommandTest extends CliHarness {
  @Test
  void helpAndBadOptions(@TempDir Path dir) throws Exception {
    assertEquals(0, run("master", "--help"));
    assertTrue(out().contains("--http-port"));
    assertEquals(2, run("master", "--policy", "fastest"));
    assertTrue(err().contains("fastest"), err());
    Path conf = dir.resolve("master.properties");
    Files.writeString(conf, "coflow.master.sesionTimeout=5s\n");
    err.reset();
    assertEquals(2, run("master", "--config", conf.toString()));
    assertTrue(err().contains("coflow.master.sesionTimeout"));
    err.reset();
    assertEquals(2, run("master", "--config", dir.resolve("missing.properties").toString()));
    assertTrue(err().contains("missing.properties"));
    err.reset();
    assertEquals(2, run("bench", "master", "--agents", "two"));
    assertTrue(err().contains("'two'"));
  }

  @Test
  void runsUntilSigtermAndStopsGracefully(@TempDir Path dir) throws Exception {
    Path conf = dir.resolve("master.properties");
    Files.writeString(conf, "coflow.master.host=127.0.0.1\ncoflow.policy.delta=50ms\n");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "master", "--port", "0", "--http-port", "0", "--policy", "varys",
        "--config", conf.toString()).redirectErrorStream(true).start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String banner = null;
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.startsWith("coflow master ")) {
          banner = line;
          break;
        }
      }
      assertTrue(banner != null && banner.contains("policy varys") && banner.contains("interval 50 ms"),
          "banner: " + banner);
      Matcher m = Pattern.compile("dashboard (http://[^ ,]+)").matcher(banner);
      assertTrue(m.find(), banner);
      HttpResponse<String> state = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(m.group(1) + "api/state")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertTrue(state.body().contains("\"policy\":\"varys\""), state.body());

      // SIGTERM, as a service manager stops it (Process.destroy would also close our pipe).
      assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor());
      assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the master did not stop on SIGTERM");
      List<String> rest = lines.lines().toList();
      assertTrue(rest.stream().anyMatch(l -> l.contains("stopped")), "no orderly stop: " + rest);
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void loadGeneratorReportsTheDocumentedFields() {
    assertEquals(0, run("bench", "master", "--agents", "3", "--flows", "300", "--seconds", "1",
        "--interval", "50", "--json"));
    String line = out().trim();
    for (String field : new String[] {"\"flows\":300", "\"agents\":3", "\"decision_p50_ms\":",
        "\"decision_p99_ms\":", "\"round_p99_ms\":", "\"kept_up\":", "\"interval_ms\":50"}) {
      assertTrue(line.contains(field), "missing " + field + " in " + line);
    }
    Matcher rounds = Pattern.compile("\"rounds\":(\\d+)").matcher(line);
    assertTrue(rounds.find() && Integer.parseInt(rounds.group(1)) > 0, line);
  }
}
