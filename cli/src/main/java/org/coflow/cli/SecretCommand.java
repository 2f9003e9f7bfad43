package org.coflow.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;
import org.coflow.core.config.Args;
import org.coflow.core.config.UsageException;

/** {@code bin/coflow secret}: a new cluster secret, printed or written to a private file. */
final class SecretCommand {
  static final String HELP =
      """
      Usage: coflow secret [--out FILE]

      Prints a new cluster secret: 32 bytes from the system's secure random source (256 bits),
      in base64. Agents and their clients prove they hold it (coflow.courier.secretFile,
      spark.shuffle.courier.secretFile, mapreduce.shuffle.courier.secretFile); every host of a
      cluster needs the same one (docs/security.md says how to roll it over).

        --out FILE   write it to FILE instead, created with mode 600 (owner only); an existing
                     FILE (or a link there) is never overwritten
      """;

  /** Bytes of randomness in a secret. */
  static final int BYTES = 32;

  private SecretCommand() {}

  static int run(String[] argv, PrintStream out) throws UsageException, IOException {
    Args a = Args.parse("coflow secret", argv, Set.of("out"), Set.of("help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    byte[] key = new byte[BYTES];
    new SecureRandom().nextBytes(key);
    String text = Base64.getEncoder().encodeToString(key) + "\n";
    if (!a.has("out")) {
      out.print(text);
      return 0;
    }
    Path file = Path.of(a.get("out", ""));
    // CREATE_NEW fails on anything already there, a link included: it is never followed.
    try (OutputStream o =
        Files.newOutputStream(
            Files.createFile(
                file,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
            StandardOpenOption.WRITE)) {
      o.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (FileAlreadyExistsException e) {
      throw new UsageException(
          "coflow secret: " + file + " already exists; remove it first or choose another --out");
    }
    out.println("coflow secret: wrote a new " + (BYTES * 8) + "-bit secret to " + file);
    return 0;
  }
}
