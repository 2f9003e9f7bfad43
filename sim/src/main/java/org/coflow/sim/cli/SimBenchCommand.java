package org.coflow.sim.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.coflow.core.config.Args;
import org.coflow.core.config.UsageException;
import org.coflow.sim.engine.SimResult;
import org.coflow.sim.report.Bin;
import org.coflow.sim.report.Json;
import org.coflow.sim.report.Reports;
import org.coflow.sim.report.RunSummary;
import org.coflow.sim.report.Stats;

/** {@code bin/coflow bench sim}: how fast the simulator replays the trace under every policy. */
public final class SimBenchCommand {
  static final String HELP =
      """
      Usage: coflow bench sim [--trace FILE] [--policy LIST] [--courier] [--coflows N]
                              [--slice N] [--bandwidth RATE] [--json] [--coalesce W]
                              [--model M]
                              [--config FILE] [--conf KEY=VALUE ...]

      bench sim: replays the whole trace (or its first N coflows) under every policy and prints each
      run's table followed by a summary: average and p95 CCT normalised to fair sharing
      and to the isolated lower bound, the speedup over fair sharing, and each run's wall
      time against the goal of 10 s per policy on a 2-core machine.
        --courier   also run every policy wrapped with Courier merging (many more events:
                    flows beyond MaxNum peers wait; slow on the whole trace)
        --slice N   then run every policy again on the first N coflows only (default 200,
                    0 = no slice), the slice the public reference simulator coflowsim was
                    timed on (FAIR 218 s, DARK 132 s, SEBF 247 s on a 2-core machine like
                    this one): fair, aalo and varys print their speed against those times.
        --model M   the reference simulator's modelling choices, as for coflow sim
      With --json, one object per run and line, "run" being "trace" or "slice", each with
      wall_s and events.
      """;

  /** coflowsim's wall times on the first 200 coflows of the Facebook trace, by policy. */
  static final Map<String, Double> REFERENCE_WALL_200 =
      Map.of("fair", 218.0, "aalo", 132.0, "varys", 247.0);

  static final int REFERENCE_SLICE = 200;

  static final double WALL_GOAL_SECONDS = 10;

  private SimBenchCommand() {}

  public static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench sim",
            argv,
            Set.of(
                "trace",
                "policy",
                "bandwidth",
                "config",
                "conf",
                "coalesce",
                "coflows",
                "slice",
                "model"),
            Set.of("json", "help", "courier"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    SimCommand.Options o = SimCommand.Options.from(a, home);
    // One run at a time: wall_s is the figure this benchmark exists for, and runs side by side
    // would share the cores and the memory bus.
    o.threads = 1;
    int slice = sliceOption(a);
    PrintStream table = o.json ? null : out;
    boolean withCourier = o.courier;
    o.courier = false;
    List<SimResult> plain = SimCommand.simulate(o, err, table);
    o.courier = true;
    List<SimResult> wrapped = withCourier ? SimCommand.simulate(o, err, table) : List.of();
    List<RunSummary> all = new ArrayList<>();
    SimResult fair = plain.get(0);
    for (SimResult r : plain) {
      all.add(RunSummary.of(r, fair));
    }
    for (SimResult r : wrapped.isEmpty() ? wrapped : wrapped.subList(1, wrapped.size())) {
      all.add(RunSummary.of(r, fair));
    }
    List<RunSummary> sliced = new ArrayList<>();
    if (slice > 0 && slice < o.trace.coflows().size()) {
      o.courier = false;
      o.trace = o.trace.first(slice);
      if (table != null) {
        table.printf(Locale.ROOT, "%nThe same policies on the first %d coflows:%n", slice);
      }
      List<SimResult> slicedRuns = SimCommand.simulate(o, err, table);
      for (SimResult r : slicedRuns) {
        sliced.add(RunSummary.of(r, slicedRuns.get(0)));
      }
    }
    if (o.json) {
      for (RunSummary s : all) {
        out.println(
            Reports.json(s, o.bandwidthText).put("run", "trace").put("model", o.model.label()));
      }
      for (RunSummary s : sliced) {
        Json j = Reports.json(s, o.bandwidthText).put("run", "slice").put("model", o.model.label());
        Double ref = referenceWall(s, slice, o);
        if (ref != null) {
          j.put("reference_wall_s", ref).put("speed_vs_reference", ref / s.run().wallSeconds());
        }
        out.println(j);
      }
      return 0;
    }
    out.printf(
        Locale.ROOT,
        "%nSummary (%s, %d coflows, %sbit/s ports; speedup = fair/policy)%n",
        o.trace.source(),
        o.trace.coflows().size(),
        o.bandwidthText);
    out.printf(
        Locale.ROOT,
        "  %-20s %9s %9s %9s %9s %8s %8s %8s %s%n",
        "run",
        "avg_s",
        "p95_s",
        "avg/fair",
        "p95/fair",
        "speedup",
        "avg/LB",
        "wall_s",
        "goal");
    for (RunSummary s : all) {
      Stats c = s.overall();
      double wall = s.run().wallSeconds();
      out.printf(
          Locale.ROOT,
          "  %-20s %9.3f %9.3f %9.3f %9.3f %8.2f %8.2f %8.2f %s%n",
          s.run().label(),
          c.avg(),
          c.p95(),
          s.vsBaseline(Bin.ALL, Stats::avg),
          s.vsBaseline(Bin.ALL, Stats::p95),
          1 / s.vsBaseline(Bin.ALL, Stats::avg),
          s.vsLowerBound(Bin.ALL, Stats::avg),
          wall,
          wall <= WALL_GOAL_SECONDS ? "ok" : "over 10s");
    }
    if (!sliced.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "%nFirst %d coflows: wall time against the reference simulator coflowsim%n",
          slice);
      out.printf(
          Locale.ROOT,
          "  %-12s %9s %9s %12s %10s%n",
          "run",
          "events",
          "wall_s",
          "coflowsim_s",
          "speed");
      for (RunSummary s : sliced) {
        Double ref = referenceWall(s, slice, o);
        out.printf(
            Locale.ROOT,
            "  %-12s %9d %9.2f %12s %10s%n",
            s.run().label(),
            s.run().events(),
            s.run().wallSeconds(),
            ref == null ? "-" : String.format(Locale.ROOT, "%.0f", ref),
            ref == null ? "-" : String.format(Locale.ROOT, "%.0fx", ref / s.run().wallSeconds()));
      }
    }
    return 0;
  }

  /**
   * coflowsim's time for the same policy on the same slice of the shipped trace, or null if none
   * was measured (another trace, slice or model).
   */
  private static Double referenceWall(RunSummary s, int slice, SimCommand.Options o) {
    return slice == REFERENCE_SLICE && !s.run().courier() && o.defaultTrace && o.model.isDefault()
        ? REFERENCE_WALL_200.get(s.run().policy())
        : null;
  }

  private static int sliceOption(Args a) throws UsageException {
    String v = a.get("slice", String.valueOf(REFERENCE_SLICE));
    try {
      int n = Integer.parseInt(v);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException(
          "coflow bench sim: --slice must be a whole number of coflows (0 = none), got '"
              + v
              + "'");
    }
  }
}
