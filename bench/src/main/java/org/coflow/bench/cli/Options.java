package org.coflow.bench.cli;

import org.coflow.cli.Args;
import org.coflow.cli.UsageException;

/** Typed option values of a command, each failure naming the command, the option and the value. */
final class Options {
  private Options() {}

  /** Turns an option's text into a value, throwing on a bad one. */
  interface Parser<T> {
    T parse(String s);
  }

  static <T> T parse(String command, Args a, String name, String fallback, Parser<T> p)
      throws UsageException {
    String text = a.get(name, fallback);
    try {
      return p.parse(text);
    } catch (RuntimeException e) {
      throw new UsageException(command + ": --" + name + " '" + text + "': " + e.getMessage());
    }
  }

  static int positive(String command, Args a, String name, String fallback) throws UsageException {
    int v = nonNegative(command, a, name, fallback);
    if (v == 0) {
      throw new UsageException(command + ": --" + name + " must be at least 1, got 0");
    }
    return v;
  }

  static int nonNegative(String command, Args a, String name, String fallback)
      throws UsageException {
    String text = a.get(name, fallback);
    try {
      int v = Integer.parseInt(text);
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        command + ": --" + name + " must be a non-negative integer, got '" + text + "'");
  }
}
