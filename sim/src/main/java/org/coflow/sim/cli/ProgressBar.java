package org.coflow.sim.cli;

import java.io.PrintStream;
import java.util.Locale;
import org.coflow.sim.engine.ProgressListener;

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

  /**
   * One line on a terminal for runs that may go side by side: how many runs have ended and, per run
   * in progress, its coflows done.
   */
  static final class Board {
    private final PrintStream err;
    private final int runs;
    private final java.util.Map<ProgressListener, String> running = new java.util.LinkedHashMap<>();
    private final java.util.Map<ProgressListener, Integer> done = new java.util.HashMap<>();
    private int ended;
    private int total;
    private long lastDraw;

    private Board(PrintStream err, int runs) {
      this.err = err;
      this.runs = runs;
    }

    /** A board if stderr is an interactive terminal, else null. */
    static Board forTerminal(PrintStream err, int runs) {
      return System.console() != null ? new Board(err, runs) : null;
    }

    /** The listener of a run that starts now. */
    synchronized ProgressListener slot(String label) {
      ProgressListener[] self = new ProgressListener[1];
      self[0] = (now, lastArrival, finished, coflows) -> update(self[0], finished, coflows);
      running.put(self[0], label);
      done.put(self[0], 0);
      return self[0];
    }

    private synchronized void update(ProgressListener run, int finished, int coflows) {
      done.put(run, finished);
      total = coflows;
      long t = System.nanoTime();
      if (t - lastDraw >= REDRAW_NANOS) {
        lastDraw = t;
        draw();
      }
    }

    synchronized void finished(ProgressListener run) {
      running.remove(run);
      done.remove(run);
      ended++;
      draw();
    }

    private void draw() {
      StringBuilder line = new StringBuilder();
      line.append(String.format(Locale.ROOT, "%d/%d runs done", ended, runs));
      for (java.util.Map.Entry<ProgressListener, String> e : running.entrySet()) {
        line.append(
            String.format(
                Locale.ROOT, "; %s %d/%d coflows", e.getValue(), done.get(e.getKey()), total));
      }
      String text = line.length() > 99 ? line.substring(0, 99) : line.toString();
      err.print("\r" + text + " ".repeat(100 - text.length()));
      err.flush();
    }

    /** Erases the line (before a table is printed). */
    synchronized void clear() {
      err.print("\r" + " ".repeat(100) + "\r");
      err.flush();
    }
  }
}
