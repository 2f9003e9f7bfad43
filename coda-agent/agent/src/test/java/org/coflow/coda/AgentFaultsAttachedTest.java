package org.coflow.coda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent in a JVM of its own ({@code -javaagent}, as users run it) when something is wrong: a
 * malformed argument, a master nobody runs. The application's bytes arrive intact, it exits 0, and
 * the agent says what is wrong once.
 */
class AgentFaultsAttachedTest {
  @TempDir Path dir;

  /** Runs {@link TransferMain} with the agent; returns its standard error. */
  private String run(String agentArgs, long stayMillis) throws Exception {
    Path err = dir.resolve("stderr");
    Path out = dir.resolve("stdout");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:off",
                "-javaagent:" + System.getProperty("coda.agent.jar") + "=" + agentArgs,
                "-cp",
                Path.of(
                        TransferMain.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString(),
                TransferMain.class.getName(),
                Long.toString(stayMillis))
            .redirectError(err.toFile())
            .redirectOutput(out.toFile())
            .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the application did not finish");
    String stderr = Files.readString(err);
    assertEquals(0, p.exitValue(), "the application failed:\n" + stderr);
    assertEquals("transfers intact", Files.readString(out).trim(), stderr);
    return stderr;
  }

  /** The agent's lines; it writes nothing else (its libraries' logging stays out of the JVM's). */
  private static List<String> agentLines(String stderr) {
    List<String> other = stderr.lines().filter(l -> !l.contains("[coda-agent]")).toList();
    assertEquals(List.of(), other, "the agent wrote other lines to the JVM's stderr");
    return stderr.lines().filter(l -> l.contains("[coda-agent]")).toList();
  }

  @Test
  void aMalformedArgumentLeavesTheJvmAlone() throws Exception {
    for (String[] c :
        new String[][] {
          {"bogus", "malformed agent argument 'bogus'"},
          {"master=nohost", "master='nohost' is not HOST:PORT"},
          {"minFlowBytes=lots", "coflow.coda.minFlowBytes"},
          {"mod=dark", "unknown configuration key 'coflow.coda.mod'"}
        }) {
      List<String> lines = agentLines(run(c[0], 0));
      assertEquals(1, lines.size(), c[0] + ": " + lines);
      assertTrue(lines.get(0).contains("[coda-agent] not started: "), lines.get(0));
      assertTrue(lines.get(0).contains(c[1]), lines.get(0));
    }
  }

  @Test
  void anUnreachableMasterIsSaidOnceAndPacesNothing() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    List<String> lines = agentLines(run("master=127.0.0.1:" + port + ",minFlowBytes=0", 2000));
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).contains("[coda-agent] started: "), lines.get(0));
    assertTrue(lines.get(1).contains("[coda-agent] master unreachable (UNAVAILABLE"), lines.get(1));
  }

  @Test
  void noMasterMeansCountingOnly() throws Exception {
    List<String> lines = agentLines(run("", 0));
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(lines.get(0).contains("master none (count only)"), lines.get(0));
  }
}
