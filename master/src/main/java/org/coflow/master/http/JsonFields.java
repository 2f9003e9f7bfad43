package org.coflow.master.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the one JSON shape the HTTP API takes in request bodies: an object whose values are
 * strings, such as {@code {"name": "varys"}}. Anything else is refused with the position and what
 * was expected.
 */
final class JsonFields {
  private final String text;
  private int pos;

  private JsonFields(String text) {
    this.text = text;
  }

  /**
   * The object's fields.
   *
   * @throws IllegalArgumentException for anything but an object of string values
   */
  static Map<String, String> parse(String text) {
    JsonFields p = new JsonFields(text);
    Map<String, String> out = new LinkedHashMap<>();
    p.expect('{');
    if (!p.peek('}')) {
      do {
        String key = p.string();
        p.expect(':');
        if (out.put(key, p.string()) != null) {
          throw new IllegalArgumentException("field \"" + key + "\" appears twice");
        }
      } while (p.accept(','));
    }
    p.expect('}');
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("the end of the body");
    }
    return out;
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (pos < text.length()) {
      char c = text.charAt(pos++);
      if (c == '"') {
        return b.toString();
      }
      if (c < ' ') {
        throw error("an escaped control character");
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      if (pos >= text.length()) {
        break;
      }
      char e = text.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          if (pos + 4 > text.length()) {
            throw error("four hex digits");
          }
          try {
            b.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          } catch (NumberFormatException ex) {
            throw error("four hex digits");
          }
          pos += 4;
        }
        default -> throw error("an escape sequence");
      }
    }
    throw error("the end of a string");
  }

  private void skipSpace() {
    while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
  }

  private boolean peek(char c) {
    skipSpace();
    return pos < text.length() && text.charAt(pos) == c;
  }

  private boolean accept(char c) {
    if (peek(c)) {
      pos++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!accept(c)) {
      throw error("'" + c + "'");
    }
  }

  private IllegalArgumentException error(String expected) {
    return new IllegalArgumentException(
        "malformed JSON at character " + pos + ": expected " + expected);
  }
}
