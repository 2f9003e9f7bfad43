package org.coflow.sim.report;

import java.math.BigDecimal;
import java.math.MathContext;
import org.coflow.core.json.JsonWriter;

/** Minimal JSON text building for reports (numbers, strings, nested objects). */
public final class Json {
  private final StringBuilder sb = new StringBuilder("{");
  private boolean first = true;

  private Json key(String k) {
    if (!first) {
      sb.append(',');
    }
    first = false;
    sb.append(quote(k)).append(':');
    return this;
  }

  public Json put(String k, String v) {
    key(k).sb.append(quote(v));
    return this;
  }

  public Json put(String k, boolean v) {
    key(k).sb.append(v);
    return this;
  }

  public Json put(String k, long v) {
    key(k).sb.append(v);
    return this;
  }

  public Json put(String k, double v) {
    key(k);
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      sb.append("null");
    } else {
      sb.append(new BigDecimal(v).round(new MathContext(7)).stripTrailingZeros().toPlainString());
    }
    return this;
  }

  /** An array of strings. */
  public Json put(String k, java.util.List<String> values) {
    key(k).sb.append('[');
    for (int i = 0; i < values.size(); i++) {
      sb.append(i > 0 ? "," : "").append(quote(values.get(i)));
    }
    sb.append(']');
    return this;
  }

  public Json put(String k, Json nested) {
    key(k).sb.append(nested);
    return this;
  }

  @Override
  public String toString() {
    return sb + "}";
  }

  static String quote(String s) {
    StringBuilder q = new StringBuilder();
    JsonWriter.quote(q, s);
    return q.toString();
  }
}
