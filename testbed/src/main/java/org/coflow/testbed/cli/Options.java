package org.coflow.testbed.cli;

import org.coflow.core.config.Args;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.testbed.Network;

/** Typed option values of a command, each failure naming the command, the option and the value. */
public final class Options {
  private Options() {}

  /** Turns an option's text into a value, throwing on a bad one. */
  public interface Parser<T> {
    T parse(String s);
  }

  public static <T> T parse(String command, Args a, String name, String fallback, Parser<T> p)
      throws UsageException {
    String text = a.get(name, fallback);
    try {
      return p.parse(text);
    } catch (RuntimeException e) {
      throw new UsageException(command + ": --" + name + " '" + text + "': " + e.getMessage());
    }
  }

  /**
   * A testbed link from {@code --rate} (default {@code rate}), {@code --buffer}, {@code --tcp},
   * {@code --rto-min} and {@code --notsent-lowat}, as the testbed commands share them.
   */
  public static Network.Link link(String command, Args a, String rate) throws UsageException {
    double bits = parse(command, a, "rate", rate, Units::parseBitRate) * 8;
    long buffer = parse(command, a, "buffer", "128k", Units::parseBytes);
    int rtoMin = (int) (long) parse(command, a, "rto-min", "0", Units::parseMillis);
    long lowat = parse(command, a, "notsent-lowat", "128k", Units::parseBytes);
    try {
      return new Network.Link(bits, buffer, a.get("tcp", "reno"), rtoMin, lowat);
    } catch (IllegalArgumentException e) {
      throw new UsageException(command + ": " + e.getMessage());
    }
  }

  public static int positive(String command, Args a, String name, String fallback)
      throws UsageException {
    int v = nonNegative(command, a, name, fallback);
    if (v == 0) {
      throw new UsageException(command + ": --" + name + " must be at least 1, got 0");
    }
    return v;
  }

  public static int nonNegative(String command, Args a, String name, String fallback)
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
