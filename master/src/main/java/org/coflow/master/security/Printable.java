package org.coflow.master.security;

/**
 * The one way a value a peer chose (host ids, addresses, coflow names, session ids, request paths,
 * a status that quotes them) enters a log line or an error message: every character that is not
 * printable is shown as an escape ({@code \n}, {@code \r}, {@code \t}, {@code \\}, else a
 * backslash, {@code u} and four hex digits), so a peer cannot start a forged line, and the value is
 * cut to a bounded length.
 */
public final class Printable {
  /** Characters kept of a value by {@link #of(String)}. */
  public static final int MAX_CHARS = 256;

  private Printable() {}

  /** {@code value} escaped and cut to {@link #MAX_CHARS} characters; "null" for null. */
  public static String of(String value) {
    return of(value, MAX_CHARS);
  }

  /** {@code value} escaped, its first {@code maxChars} characters only, then "...(N chars)". */
  public static String of(String value, int maxChars) {
    if (value == null) {
      return "null";
    }
    int n = Math.min(value.length(), maxChars);
    StringBuilder b = new StringBuilder(n + 16);
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\\' -> b.append("\\\\");
        default -> {
          if (printable(c)) {
            b.append(c);
          } else {
            b.append(String.format("\\u%04x", (int) c));
          }
        }
      }
    }
    if (value.length() > maxChars) {
      b.append("...(").append(value.length()).append(" chars)");
    }
    return b.toString();
  }

  /** Visible characters and spaces; no controls, format or separator characters, no surrogates. */
  private static boolean printable(char c) {
    if (c >= ' ' && c < 0x7f) {
      return true;
    }
    return switch (Character.getType(c)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR,
          Character.SURROGATE,
          Character.PRIVATE_USE,
          Character.UNASSIGNED ->
          false;
      default -> true;
    };
  }
}
