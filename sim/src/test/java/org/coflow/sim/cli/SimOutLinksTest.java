package org.coflow.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code coflow sim --out DIR} replaces links planted in DIR rather than writing through them. */
class SimOutLinksTest extends CliHarness {
  @Test
  void linksAtTheOutputsAreReplacedAndTheirTargetsLeftAlone(@TempDir Path dir) throws Exception {
    Path trace =
        Files.writeString(dir.resolve("t.txt"), "4 2\n1 0 1 0 1 1:4.0\n2 5 2 0 2 1 3:8.0\n");
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Path secret = Files.writeString(outside.resolve("secret"), "keep me\n");
    Path victim = Files.writeString(outside.resolve("victim.csv"), "keep me too\n");
    Path out = Files.createDirectories(dir.resolve("out"));
    Files.createSymbolicLink(out.resolve("summary.json"), secret);
    Files.createSymbolicLink(out.resolve("coflows.csv"), victim);
    Files.createSymbolicLink(out.resolve("cct-cdf.png"), outside.resolve("planted.png"));

    assertEquals(
        0,
        run(
            "sim",
            "--trace",
            trace.toString(),
            "--policy",
            "fair",
            "--threads",
            "1",
            "--out",
            out.toString()),
        err());

    assertEquals("keep me\n", Files.readString(secret));
    assertEquals("keep me too\n", Files.readString(victim));
    assertFalse(Files.exists(outside.resolve("planted.png"), LinkOption.NOFOLLOW_LINKS));
    for (String name : new String[] {"summary.json", "coflows.csv", "cct-cdf.png"}) {
      assertTrue(Files.isRegularFile(out.resolve(name), LinkOption.NOFOLLOW_LINKS), name);
    }
    assertTrue(Files.readString(out.resolve("summary.json")).contains("\"policy\":\"fair\""));
    try (var names = Files.list(out)) {
      assertEquals(3, names.count(), "no temporary file left behind");
    }
  }
}
