package org.coflow.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.coflow.core.config.Args;
import org.coflow.core.config.ConfigDocs;
import org.coflow.core.config.UsageException;

/** {@code bin/coflow docs}: regenerate (or check) docs/configuration.md. */
final class DocsCommand {
  static final String HELP =
      """
      Usage: coflow docs [--check]

      Writes docs/configuration.md from the typed configuration registries of every module.
        --check   do not write; exit 1 if the file is stale
      """;

  private DocsCommand() {}

  static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a = Args.parse("coflow docs", argv, Set.of(), Set.of("check", "help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    Path file = home.resolve("docs/configuration.md");
    String text = ConfigDocs.render(ConfigDocs.discover());
    if (a.has("check")) {
      boolean fresh = Files.exists(file) && Files.readString(file).equals(text);
      err.println(fresh ? file + " is up to date" : file + " is stale: run 'bin/coflow docs'");
      return fresh ? 0 : 1;
    }
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    out.println("wrote " + file);
    return 0;
  }
}
