package org.coflow.sim.report;

import org.coflow.sim.trace.Trace;

/**
 * The Varys/Aalo coflow bins: short/long = longest flow below/at least 5 MB, narrow/wide = at most
 * / more than 50 flows.
 */
public enum Bin {
  ALL("all"),
  SHORT_NARROW("short-narrow"),
  LONG_NARROW("long-narrow"),
  SHORT_WIDE("short-wide"),
  LONG_WIDE("long-wide");

  public static final double SHORT_BYTES = 5 * Trace.MB;
  public static final int NARROW_FLOWS = 50;

  private final String label;

  Bin(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  public static Bin of(double longestFlowBytes, int flows) {
    boolean isShort = longestFlowBytes < SHORT_BYTES;
    boolean narrow = flows <= NARROW_FLOWS;
    if (isShort) {
      return narrow ? SHORT_NARROW : SHORT_WIDE;
    }
    return narrow ? LONG_NARROW : LONG_WIDE;
  }
}
