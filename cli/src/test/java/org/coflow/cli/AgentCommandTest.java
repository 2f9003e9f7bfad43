package org.coflow.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/coflow agent} as users call it. */
class AgentCommandTest extends CliHarness {
  @Test
  void helpAndBadOptions(@TempDir Path dir) {
    assertEquals(0, run("agent", "--help"));
    assertTrue(out().contains("--link-rate"));
    assertEquals(2, run("agent", "--port", "0"));
    assertTrue(err().contains("--host-id is required"));
    err.reset();
    assertEquals(
        2,
        run("agent", "--host-id", "h1", "--port", "0", "--dirs", dir.resolve("nope").toString()));
    assertTrue(err().contains("nope"), err());
    err.reset();
    assertEquals(2, run("agent", "--host-id", "h1", "--link-rate", "fast"));
    assertTrue(err().contains("fast"), err());
  }

  @Test
  void runsUntilSigterm(@TempDir Path dir) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "agent",
                "--host-id",
                "exec-1",
                "--port",
                "0",
                "--bind",
                "127.0.0.1",
                "--link-rate",
                "100m",
                "--dirs",
                dir.toString(),
                "--port-file",
                dir.resolve("agent.ports").toString())
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String banner = null;
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.startsWith("coflow agent ")) {
          banner = line;
          break;
        }
      }
      assertTrue(
          banner != null && banner.contains("master none") && banner.contains("link rate"),
          "" + banner);
      int port = PortFile.read(dir.resolve("agent.ports"), "port");
      assertTrue(port > 0, "the port file names the agent's port");
      try (Socket s = new Socket("127.0.0.1", port)) {
        assertTrue(s.isConnected());
      }
      assertEquals(
          0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor());
      assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the agent did not stop on SIGTERM");
    } finally {
      p.destroyForcibly();
    }
  }
}
