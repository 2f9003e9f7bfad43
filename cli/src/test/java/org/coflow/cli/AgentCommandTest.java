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
        run(
            "agent",
            "--host-id",
            "h1",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--dirs",
            dir.resolve("nope").toString()));
    assertTrue(err().contains("nope"), err());
    err.reset();
    assertEquals(2, run("agent", "--host-id", "h1", "--bind", "127.0.0.1", "--link-rate", "fast"));
    assertTrue(err().contains("fast"), err());
  }

  @Test
  void withoutASecretItListensOnlyOnLoopbackUnlessToldInsecure(@TempDir Path dir) throws Exception {
    assertEquals(2, run("agent", "--host-id", "h1", "--port", "0", "--dirs", dir.toString()));
    assertTrue(err().contains("no secret") && err().contains("coflow secret --out"), err());
    err.reset();
    // --insecure gets past the secret check: what stops this start is the missing directory.
    assertEquals(
        2,
        run(
            "agent",
            "--host-id",
            "h1",
            "--port",
            "0",
            "--insecure",
            "--dirs",
            dir.resolve("nope").toString()));
    assertTrue(err().contains("nope") && !err().contains("no secret"), err());
    // A secret made by 'coflow secret' is accepted (the agent then starts; not here: it would
    // run until stopped); a weak one is refused, naming the file.
    Path weak = dir.resolve("weak.secret");
    java.nio.file.Files.writeString(weak, "password12345678");
    java.nio.file.Files.setPosixFilePermissions(
        weak, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    err.reset();
    assertEquals(
        2,
        run(
            "agent",
            "--host-id",
            "h1",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--secret-file",
            weak.toString()));
    assertTrue(err().contains("too easy to guess") && err().contains("weak.secret"), err());
  }

  @Test
  void secretMakesAStrongPrivateSecret(@TempDir Path dir) throws Exception {
    assertEquals(0, run("secret"));
    String printed = out().strip();
    assertEquals(32, java.util.Base64.getDecoder().decode(printed).length);
    Path file = dir.resolve("cluster.secret");
    assertEquals(0, run("secret", "--out", file.toString()));
    assertEquals(
        "rw-------",
        java.nio.file.attribute.PosixFilePermissions.toString(
            java.nio.file.Files.getPosixFilePermissions(file)));
    // What it wrote is a secret the agents accept.
    org.coflow.courier.auth.Secret.fromFile(file, "test");
    // Never over an existing file, nor through a link planted at the path.
    assertEquals(2, run("secret", "--out", file.toString()));
    Path target = java.nio.file.Files.writeString(dir.resolve("elsewhere"), "keep");
    Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("link.secret"), target);
    assertEquals(2, run("secret", "--out", link.toString()));
    assertEquals("keep", java.nio.file.Files.readString(target));
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
