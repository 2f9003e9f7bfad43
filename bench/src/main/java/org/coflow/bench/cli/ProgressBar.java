package org.coflow.bench.cli;

import java.io.PrintStream;
import java.util.Locale;
import org.coflow.bench.sim.ProgressListener;

/** A one-line progress bar of simulated time on stderr, shown only on a terminal. */
final class ProgressBar implements ProgressListener {
  private static final long REDRAW_NANOS = 200_000_000L;
  private final PrintStream err;
  private final String label;
  private long lastDraw;

  private ProgressBar(PrintStream err, String label) {
    this.err = err;
    this.label = label;
  }

  /** A bar if stderr is an interactive terminal, else null. */
  static ProgressBar forTerminal(PrintStream err, String label) {
    return System.console() != null ? new ProgressBar(err, label) : null;
  }

  @Override
  public void progress(double now, double lastArrival, int finished, int total) {
    long t = System.nanoTime();
    if (t - lastDraw < REDRAW_NANOS) {
      return;
    }
    lastDraw = t;
    double frac = total == 0 ? 1 : (double) finished / total;
    int width = 30;
    int filled = (int) Math.round(frac * width);
    err.printf(
        Locale.ROOT,
        "\r%-18s [%s%s] t=%.0fs (arrivals end %.0fs) %d/%d coflows done ",
        label,
        "#".repeat(filled),
        ".".repeat(width - filled),
        now,
        lastArrival,
        finished,
        total);
    err.flush();
  }

  void done() {
    err.print("\r" + " ".repeat(100) + "\r");
    err.flush();
  }
}
