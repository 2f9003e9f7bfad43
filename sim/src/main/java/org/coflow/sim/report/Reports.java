package org.coflow.sim.report;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.coflow.sim.engine.SimResult;

/** The simulator's outputs: the text table, JSON lines, per-coflow CSV and the summary file. */
public final class Reports {
  private Reports() {}

  /** The table users read: one block per run, a row per bin. */
  public static void printTable(PrintStream out, RunSummary s, String bandwidth) {
    SimResult r = s.run();
    out.printf(
        Locale.ROOT,
        "%n%s  (coflows=%d, bandwidth=%s, events=%d, wall=%.2fs)%n",
        r.label(),
        r.coflows(),
        bandwidth,
        r.events(),
        r.wallSeconds());
    out.printf(
        Locale.ROOT,
        "  %-13s %5s %10s %10s %10s %10s %9s %9s %8s %8s%n",
        "bin",
        "n",
        "avg_s",
        "p50_s",
        "p95_s",
        "p99_s",
        "avg/fair",
        "p95/fair",
        "avg/LB",
        "p95/LB");
    for (Bin bin : Bin.values()) {
      Stats c = s.cct().get(bin);
      if (c.count() == 0) {
        continue;
      }
      out.printf(
          Locale.ROOT,
          "  %-13s %5d %10.3f %10.3f %10.3f %10.3f %9s %9s %8.2f %8.2f%n",
          bin.label(),
          c.count(),
          c.avg(),
          c.p50(),
          c.p95(),
          c.p99(),
          ratio(s.vsBaseline(bin, Stats::avg)),
          ratio(s.vsBaseline(bin, Stats::p95)),
          s.vsLowerBound(bin, Stats::avg),
          s.vsLowerBound(bin, Stats::p95));
    }
  }

  private static String ratio(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
  }

  /** One JSON object for a run (the line {@code --json} prints and summary.json lists). */
  public static Json json(RunSummary s, String bandwidth) {
    SimResult r = s.run();
    Stats all = s.overall();
    Json j =
        new Json()
            .put("policy", r.policy())
            .put("courier", r.courier())
            .put("bandwidth", bandwidth)
            .put("coflows", r.coflows())
            .put("avg_cct_s", all.avg())
            .put("p50_cct_s", all.p50())
            .put("p95_cct_s", all.p95())
            .put("p99_cct_s", all.p99())
            .put("lower_bound_avg_cct_s", s.lowerBound().get(Bin.ALL).avg())
            .put("avg_vs_fair", s.vsBaseline(Bin.ALL, Stats::avg))
            .put("p95_vs_fair", s.vsBaseline(Bin.ALL, Stats::p95))
            .put("avg_vs_lower_bound", s.vsLowerBound(Bin.ALL, Stats::avg))
            .put("p95_vs_lower_bound", s.vsLowerBound(Bin.ALL, Stats::p95))
            .put("events", r.events())
            .put("wall_s", r.wallSeconds());
    Json bins = new Json();
    for (Bin bin : Bin.values()) {
      if (bin == Bin.ALL) {
        continue;
      }
      Stats c = s.cct().get(bin);
      bins.put(
          bin.label(),
          new Json()
              .put("coflows", c.count())
              .put("avg_cct_s", c.avg())
              .put("p95_cct_s", c.p95())
              .put("avg_vs_fair", s.vsBaseline(bin, Stats::avg))
              .put("avg_vs_lower_bound", s.vsLowerBound(bin, Stats::avg)));
    }
    return j.put("bins", bins);
  }

  /** Per-coflow CSV of every run: one row per (run, coflow). */
  public static void writeCsv(Path file, List<SimResult> runs) throws IOException {
    OutputFile.write(
        file, out -> writeCsv(new OutputStreamWriter(out, StandardCharsets.UTF_8), runs));
  }

  private static void writeCsv(Writer w, List<SimResult> runs) throws IOException {
    w.write("policy,coflow,arrival_s,cct_s,lower_bound_s,bytes,flows,longest_flow_bytes,bin\n");
    for (SimResult r : runs) {
      for (int i = 0; i < r.coflows(); i++) {
        w.write(
            String.format(
                Locale.ROOT,
                "%s,%d,%.3f,%.6f,%.6f,%.0f,%d,%.0f,%s%n",
                r.label(),
                r.ids()[i],
                r.arrival()[i],
                r.cct()[i],
                r.lowerBound()[i],
                r.bytes()[i],
                r.flows()[i],
                r.longestFlow()[i],
                Bin.of(r.longestFlow()[i], r.flows()[i]).label()));
      }
    }
    w.flush();
  }

  public static void writeSummary(Path file, List<RunSummary> runs, String bandwidth)
      throws IOException {
    StringBuilder sb = new StringBuilder("[\n");
    for (int i = 0; i < runs.size(); i++) {
      sb.append("  ")
          .append(json(runs.get(i), bandwidth))
          .append(i + 1 < runs.size() ? ",\n" : "\n");
    }
    OutputFile.writeString(file, sb.append("]\n"));
  }
}
