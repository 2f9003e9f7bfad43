package org.coflow.core.config;

import java.util.Locale;

/** Parsing and printing of byte counts, durations and bit rates in configuration and commands. */
public final class Units {
  private Units() {}

  /** "4194304", "4m", "4MiB", "10 MB" (binary multiples: 1k = 1024). */
  public static long parseBytes(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
    t = stripSuffix(stripSuffix(t, "ib"), "b");
    long mult = 1;
    if (!t.isEmpty()) {
      char last = t.charAt(t.length() - 1);
      int shift = "kmgt".indexOf(last);
      if (shift >= 0) {
        mult = 1L << (10 * (shift + 1));
        t = t.substring(0, t.length() - 1);
      }
    }
    try {
      double v = Double.parseDouble(t);
      if (!(v >= 0) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return Math.round(v * mult);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected a byte count such as 4194304, 64k or 4m");
    }
  }

  public static String formatBytes(long bytes) {
    String[] units = {"", "k", "m", "g", "t"};
    int u = 0;
    long v = bytes;
    while (u < units.length - 1 && v != 0 && v % 1024 == 0) {
      v /= 1024;
      u++;
    }
    return v + units[u];
  }

  /** "100ms", "2s", "1.5s", "250" (milliseconds). */
  public static long parseMillis(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    double mult = 1;
    if (t.endsWith("ms")) {
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("s")) {
      t = t.substring(0, t.length() - 1);
      mult = 1000;
    }
    try {
      double v = Double.parseDouble(t.trim());
      if (!(v >= 0) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return Math.round(v * mult);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected a duration such as 100ms or 2s");
    }
  }

  /** "1g" = 1e9 bit/s = 1.25e8 bytes/s; also "100m", "10gbps", "1000000000". Returns bytes/s. */
  public static double parseBitRate(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    t = stripSuffix(stripSuffix(t, "bps"), "bit/s");
    double mult = 1;
    if (!t.isEmpty()) {
      int i = "kmgt".indexOf(t.charAt(t.length() - 1));
      if (i >= 0) {
        mult = Math.pow(1000, i + 1);
        t = t.substring(0, t.length() - 1);
      }
    }
    try {
      double v = Double.parseDouble(t);
      if (!(v > 0) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return v * mult / 8;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected a positive bit rate such as 1g, 100m or 10gbps");
    }
  }

  public static String formatBitRate(double bytesPerSecond) {
    double bits = bytesPerSecond * 8;
    String[] units = {"", "k", "m", "g", "t"};
    int u = 0;
    while (u < units.length - 1 && bits >= 1000 && bits % 1000 == 0) {
      bits /= 1000;
      u++;
    }
    return (bits == Math.rint(bits) ? String.valueOf((long) bits) : String.valueOf(bits))
        + units[u];
  }

  private static String stripSuffix(String t, String suffix) {
    return t.endsWith(suffix) && t.length() > suffix.length()
        ? t.substring(0, t.length() - suffix.length())
        : t;
  }
}
