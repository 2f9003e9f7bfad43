package org.coflow.sim.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.coflow.sim.engine.SimResult;

/** A PNG of the CCT CDFs of several runs, log-scaled time axis, drawn with Java2D (headless). */
public final class CdfPlot {
  private static final Color[] PALETTE = {
    new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
    new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
    new Color(0xbcbd22), new Color(0x17becf)
  };

  private CdfPlot() {}

  /** The colour of the {@code i}th series (shared by the other plots). */
  static Color color(int i) {
    return PALETTE[i % PALETTE.length];
  }

  /** Solid for the first ten series, dashed for the next ten, so twenty stay apart. */
  static BasicStroke stroke(int i) {
    return i < PALETTE.length
        ? new BasicStroke(2f)
        : new BasicStroke(
            2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 5f}, 0f);
  }

  /** One curve: a label and its values. */
  public record Series(String label, double[] values) {}

  public static void write(Path file, List<SimResult> runs, String title) throws IOException {
    List<Series> series = new java.util.ArrayList<>();
    for (SimResult r : runs) {
      series.add(new Series(r.label(), r.cct()));
    }
    writeSeries(file, series, title);
  }

  /** The CDF of each series' values (NaN values left out), on a log-scaled time axis. */
  public static void writeSeries(Path file, List<Series> runs, String title) throws IOException {
    int w = 1000;
    int h = 640;
    int left = 80;
    int right = 220;
    int top = 50;
    int bottom = 70;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    double min = Double.POSITIVE_INFINITY;
    double max = 0;
    for (Series r : runs) {
      for (double c : r.values()) {
        if (c > 0) {
          min = Math.min(min, c);
          max = Math.max(max, c);
        }
      }
    }
    if (max <= 0) {
      min = 0.001;
      max = 1;
    }
    double lo = Math.floor(Math.log10(min));
    double hi = Math.ceil(Math.log10(max));
    if (hi <= lo) {
      hi = lo + 1;
    }
    int pw = w - left - right;
    int ph = h - top - bottom;
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    g.setColor(new Color(0xdddddd));
    for (double d = lo; d <= hi; d++) {
      int x = left + (int) Math.round((d - lo) / (hi - lo) * pw);
      g.drawLine(x, top, x, top + ph);
    }
    for (int k = 0; k <= 10; k++) {
      int y = top + ph - k * ph / 10;
      g.drawLine(left, y, left + pw, y);
    }
    g.setColor(Color.BLACK);
    g.drawRect(left, top, pw, ph);
    for (double d = lo; d <= hi; d++) {
      int x = left + (int) Math.round((d - lo) / (hi - lo) * pw);
      String label =
          d >= 0
              ? String.format(Locale.ROOT, "%.0f", Math.pow(10, d))
              : String.format(Locale.ROOT, "%s", Math.pow(10, d));
      g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, top + ph + 18);
    }
    for (int k = 0; k <= 10; k += 2) {
      int y = top + ph - k * ph / 10;
      String label = String.format(Locale.ROOT, "%.1f", k / 10.0);
      g.drawString(label, left - 8 - g.getFontMetrics().stringWidth(label), y + 5);
    }
    g.drawString("coflow completion time (s, log scale)", left + pw / 2 - 110, h - 25);
    g.drawString("fraction of coflows", 10, top - 8);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, left, 22);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    for (int i = 0; i < runs.size(); i++) {
      Series r = runs.get(i);
      double[] sorted = Arrays.stream(r.values()).filter(v -> !Double.isNaN(v)).toArray();
      Arrays.sort(sorted);
      Path2D.Double path = new Path2D.Double();
      double prevY = top + ph;
      for (int k = 0; k < sorted.length; k++) {
        double x = left + (Math.log10(Math.max(sorted[k], Math.pow(10, lo))) - lo) / (hi - lo) * pw;
        double y = top + ph - (double) (k + 1) / sorted.length * ph;
        if (k == 0) {
          path.moveTo(x, prevY);
        }
        path.lineTo(x, prevY);
        path.lineTo(x, y);
        prevY = y;
      }
      g.setColor(PALETTE[i % PALETTE.length]);
      g.setStroke(stroke(i));
      g.draw(path);
      int ly = top + 20 + i * 22;
      g.drawLine(left + pw + 20, ly - 5, left + pw + 50, ly - 5);
      g.setColor(Color.BLACK);
      g.drawString(r.label(), left + pw + 58, ly);
    }
    g.dispose();
    OutputFile.writePng(file, img);
  }
}
