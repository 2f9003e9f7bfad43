package org.coflow.core.json;

/**
 * A small streaming JSON writer: objects, arrays, strings, numbers and booleans, with commas placed
 * by the writer. Non-finite numbers are written as {@code null}.
 */
public final class JsonWriter {
  private final StringBuilder out;

  /** Whether the current container already holds a value (one bit per nesting level). */
  private long hasValue;

  private int depth;
  private boolean afterKey;

  public JsonWriter(StringBuilder out) {
    this.out = out;
  }

  public JsonWriter beginObject() {
    value();
    out.append('{');
    push();
    return this;
  }

  public JsonWriter endObject() {
    depth--;
    out.append('}');
    return this;
  }

  public JsonWriter beginArray() {
    value();
    out.append('[');
    push();
    return this;
  }

  public JsonWriter endArray() {
    depth--;
    out.append(']');
    return this;
  }

  public JsonWriter name(String name) {
    value();
    quote(out, name);
    out.append(':');
    afterKey = true;
    return this;
  }

  public JsonWriter value(String v) {
    value();
    if (v == null) {
      out.append("null");
    } else {
      quote(out, v);
    }
    return this;
  }

  public JsonWriter value(long v) {
    value();
    out.append(v);
    return this;
  }

  public JsonWriter value(double v) {
    value();
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      out.append("null");
    } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      out.append((long) v);
    } else {
      out.append(v);
    }
    return this;
  }

  public JsonWriter value(boolean v) {
    value();
    out.append(v);
    return this;
  }

  private void push() {
    depth++;
    hasValue &= ~(1L << depth);
  }

  /** Writes the comma before a value or key where one is due. */
  private void value() {
    if (afterKey) {
      afterKey = false;
      return;
    }
    if (depth > 0) {
      long bit = 1L << depth;
      if ((hasValue & bit) != 0) {
        out.append(',');
      }
      hasValue |= bit;
    }
  }

  /** Appends {@code s} as a JSON string literal. */
  public static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }
}
