package org.coflow.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputFileTest {
  @Test
  void aFailedWriteLeavesTheOldFileAndNoTemporaryFile(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("summary.json"), "old\n");
    assertThrows(
        IOException.class,
        () ->
            OutputFile.write(
                file,
                out -> {
                  out.write("half".getBytes());
                  throw new IOException("disk full");
                }));
    assertEquals("old\n", Files.readString(file));
    try (var names = Files.list(dir)) {
      assertEquals(List.of(file), names.toList());
    }
  }

  @Test
  void theFileGetsTheUsualPermissionsOfACreatedFile(@TempDir Path dir) throws Exception {
    Path usual = Files.createFile(dir.resolve("usual"));
    Path written = dir.resolve("written");
    OutputFile.writeString(written, "new\n");
    assertEquals("new\n", Files.readString(written));
    assertEquals(Files.getPosixFilePermissions(usual), Files.getPosixFilePermissions(written));
  }
}
