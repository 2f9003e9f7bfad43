package org.coflow.sim.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** PNG line and bar charts on linear axes, drawn with Java2D (headless), in CdfPlot's style. */
public final class ChartPlot {
  private static final int W = 1000;
  private static final int H = 640;
  private static final int LEFT = 80;
  private static final int RIGHT = 240;
  private static final int TOP = 50;
  private static final int BOTTOM = 70;

  private ChartPlot() {}

  /** One line: a label and its points, {@code x[i], y[i]}. */
  public record Line(String label, double[] x, double[] y) {}

  /** Lines over a shared x axis (e.g. connections over time), one colour each. */
  public static void lines(Path file, List<Line> lines, String title, String xLabel, String yLabel)
      throws IOException {
    double maxX = 0;
    double maxY = 0;
    for (Line l : lines) {
      for (double v : l.x()) {
        maxX = Math.max(maxX, v);
      }
      for (double v : l.y()) {
        maxY = Math.max(maxY, v);
      }
    }
    maxX = maxX > 0 ? maxX : 1;
    maxY = niceCeiling(maxY);
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = frame(img, title, xLabel, yLabel, maxX, maxY);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    for (int i = 0; i < lines.size(); i++) {
      Line l = lines.get(i);
      Path2D.Double path = new Path2D.Double();
      for (int k = 0; k < l.x().length; k++) {
        double x = LEFT + l.x()[k] / maxX * pw;
        double y = TOP + ph - l.y()[k] / maxY * ph;
        if (k == 0) {
          path.moveTo(x, y);
        } else {
          path.lineTo(x, y);
        }
      }
      g.setColor(CdfPlot.color(i));
      g.setStroke(CdfPlot.stroke(i));
      g.draw(path);
      legend(g, i, l.label());
    }
    g.dispose();
    OutputFile.writePng(file, img);
  }

  /** One bar per label. */
  public static void bars(
      Path file, List<String> labels, double[] values, String title, String yLabel)
      throws IOException {
    double maxY = 0;
    for (double v : values) {
      maxY = Math.max(maxY, v);
    }
    maxY = niceCeiling(maxY);
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = frame(img, title, "", yLabel, 0, maxY);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    int n = Math.max(1, values.length);
    double slot = (double) pw / n;
    for (int i = 0; i < values.length; i++) {
      int bh = (int) Math.round(values[i] / maxY * ph);
      int x = LEFT + (int) Math.round(i * slot + slot * 0.15);
      g.setColor(CdfPlot.color(i));
      g.fillRect(x, TOP + ph - bh, (int) Math.round(slot * 0.7), bh);
      g.setColor(Color.BLACK);
      String v = String.format(Locale.ROOT, "%.0f", values[i]);
      g.drawString(v, x, TOP + ph - bh - 4);
      legend(g, i, labels.get(i));
    }
    g.dispose();
    OutputFile.writePng(file, img);
  }

  private static double niceCeiling(double v) {
    if (v <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  /** Background, grid, axes with five ticks each (none on x if {@code maxX} is 0), labels. */
  private static Graphics2D frame(
      BufferedImage img, String title, String xLabel, String yLabel, double maxX, double maxY) {
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    for (int k = 0; k <= 5; k++) {
      int y = TOP + ph - k * ph / 5;
      g.setColor(new Color(0xdddddd));
      g.drawLine(LEFT, y, LEFT + pw, y);
      g.setColor(Color.BLACK);
      String label = format(maxY * k / 5);
      g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y + 5);
      if (maxX > 0) {
        int x = LEFT + k * pw / 5;
        String xl = format(maxX * k / 5);
        g.drawString(xl, x - g.getFontMetrics().stringWidth(xl) / 2, TOP + ph + 18);
      }
    }
    g.drawRect(LEFT, TOP, pw, ph);
    g.drawString(xLabel, LEFT + pw / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, H - 25);
    g.drawString(yLabel, 10, TOP - 8);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, LEFT, 22);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    return g;
  }

  private static String format(double v) {
    return v == Math.rint(v)
        ? String.format(Locale.ROOT, "%.0f", v)
        : String.format(Locale.ROOT, "%.1f", v);
  }

  private static void legend(Graphics2D g, int i, String label) {
    int pw = W - LEFT - RIGHT;
    int ly = TOP + 20 + i * 22;
    g.setColor(CdfPlot.color(i));
    g.setStroke(CdfPlot.stroke(i));
    g.drawLine(LEFT + pw + 20, ly - 5, LEFT + pw + 50, ly - 5);
    g.setColor(Color.BLACK);
    g.drawString(label, LEFT + pw + 58, ly);
  }
}
