package org.coflow.cli;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/coflow master} as users and programs call it. */
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
  }

  @Test
  void runsUntilSigtermAndStopsGracefully(@TempDir Path dir) throws Exception {
    Path conf = dir.resolve("master.properties");
    Files.writeString(conf, "coflow.master.host=127.0.0.1\ncoflow.policy.delta=50ms\n");
    Path ports = dir.resolve("master.ports");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "master",
                "--port",
                "0",
                "--http-port",
                "0",
                "--policy",
                "varys",
                "--config",
                conf.toString(),
                "--port-file",
                ports.toString())
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String banner = null;
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.startsWith("coflow master ")) {
          banner = line;
          break;
        }
      }
      assertTrue(
          banner != null && banner.contains("policy varys") && banner.contains("interval 50 ms"),
          "banner: " + banner);
      // The port file is written before the banner: programs read ports there, never in the banner.
      int http = PortFile.read(ports, "http.port");
      assertTrue(http > 0 && PortFile.read(ports, "grpc.port") > 0, Files.readString(ports));
      HttpResponse<String> state =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/api/state"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertTrue(state.body().contains("\"policy\":\"varys\""), state.body());

      // SIGTERM, as a service manager stops it (Process.destroy would also close our pipe).
      assertEquals(
          0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor());
      assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the master did not stop on SIGTERM");
      List<String> rest = lines.lines().toList();
      assertTrue(rest.stream().anyMatch(l -> l.contains("stopped")), "no orderly stop: " + rest);
    } finally {
      p.destroyForcibly();
    }
  }
}
