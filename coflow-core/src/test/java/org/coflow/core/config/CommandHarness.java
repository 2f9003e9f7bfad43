package org.coflow.core.config;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs {@code bin/coflow} commands in-process, capturing what they print: each module's tests name
 * the entry point their commands start from.
 */
public abstract class CommandHarness {
  protected final ByteArrayOutputStream out = new ByteArrayOutputStream();
  protected final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** The module's entry point: runs {@code args}, printing to {@code out} and {@code err}. */
  protected abstract int main(String[] args, PrintStream out, PrintStream err);

  protected int run(String... args) {
    return main(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  protected String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  protected String err() {
    return err.toString(StandardCharsets.UTF_8);
  }
}
