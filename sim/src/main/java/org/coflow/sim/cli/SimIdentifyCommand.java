package org.coflow.sim.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.UsageException;
import org.coflow.core.identify.Accuracy;
import org.coflow.core.identify.CodaMetric;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.engine.IdentifiedSimulator;
import org.coflow.sim.engine.IdentifiedSimulator.Grouping;
import org.coflow.sim.engine.ProgressListener;
import org.coflow.sim.engine.SimResult;
import org.coflow.sim.identify.IdentifyWorkload;
import org.coflow.sim.report.Bin;
import org.coflow.sim.report.Json;
import org.coflow.sim.report.Reports;
import org.coflow.sim.report.RunSummary;
import org.coflow.sim.report.Stats;

/**
 * {@code bin/coflow sim --identify W}: CODA in the simulator (seed 002 §6.4). Every flow of the
 * trace starts at its own time under one of CODA's start-time models, and six runs compare what the
 * scheduler is told: per-flow fair sharing, Aalo with the true coflows, CODA with the coflows it
 * identifies online (late binding and intra-coflow prioritisation on), CODA without late binding,
 * CODA without intra-coflow prioritisation, and without both (Aalo on the identified coflows).
 */
final class SimIdentifyCommand {
  /** One run: its label, what it groups by, and its policy. */
  private record Variant(String label, Grouping grouping, String policy, Config config) {}

  private SimIdentifyCommand() {}

  static int run(Args a, SimCommand.Options o, PrintStream out, PrintStream err)
      throws UsageException {
    IdentifyWorkload.Arrivals arrivals =
        parseEnum(
            IdentifyWorkload.Arrivals.class,
            "--identify",
            a.get("identify", ""),
            "normal, batch or stretched");
    IdentifyWorkload.Framework framework =
        parseEnum(
            IdentifyWorkload.Framework.class,
            "--framework",
            a.get("framework", "spark"),
            "spark, hadoop or mixed");
    double batch = number(a, "batch-interval", "10");
    double round = number(a, "round", "0.1");
    double eps = number(a, "eps", "1.0");
    double tau = number(a, "tau", "0.5");
    if (!(batch > 0)
        || !(round >= 0.001 && round <= 10)
        || !(eps > 0)
        || !(tau >= 0)
        || tau > eps) {
      throw new UsageException(
          "coflow sim: need --batch-interval > 0, --round between 0.001 and 10 s, --eps > 0 "
              + "and 0 <= --tau <= --eps");
    }
    CodaMetric metric = IdentifyBenchCommand.metric(a, "coflow sim");
    List<IdentifyWorkload.Flow> flows =
        IdentifyWorkload.generate(o.trace, framework, arrivals, batch, Integer.MAX_VALUE, 1);
    IdentifiedSimulator sim =
        new IdentifiedSimulator(o.trace, flows, o.bandwidth, round, metric, eps, tau);
    Config noLateBinding = o.config.with(PolicyConfig.CODA_LATE_BINDING, 0.0);
    Config noIntra = o.config.with(PolicyConfig.CODA_FLOW_QUEUES, 1);
    List<Variant> variants =
        List.of(
            new Variant("fair", Grouping.TRUE, "fair", o.config),
            new Variant("aalo", Grouping.TRUE, "aalo", o.config),
            new Variant("coda", Grouping.IDENTIFIED, "coda", o.config),
            new Variant("coda-no-late-binding", Grouping.IDENTIFIED, "coda", noLateBinding),
            new Variant("coda-no-intra", Grouping.IDENTIFIED, "coda", noIntra),
            new Variant("coda-no-both", Grouping.IDENTIFIED, "aalo", o.config));
    if (a.has("runs")) {
      java.util.Set<String> wanted = new java.util.LinkedHashSet<>(List.of("fair", "aalo"));
      java.util.Set<String> known = new java.util.HashSet<>();
      variants.forEach(v -> known.add(v.label));
      for (String r : a.get("runs", "").split(",")) {
        String name = r.trim().toLowerCase(Locale.ROOT);
        if (!known.contains(name)) {
          throw new UsageException(
              "coflow sim: unknown run '"
                  + r.trim()
                  + "' in --runs; runs are "
                  + String.join(", ", known.stream().sorted().toList()));
        }
        wanted.add(name);
      }
      variants = variants.stream().filter(v -> wanted.contains(v.label)).toList();
    }
    String what =
        String.format(
            Locale.ROOT,
            "%s, %d coflows, %d flows, %s, %s arrivals%s, %sbit/s ports, rounds of %.0f ms",
            o.trace.source().replaceAll(".*/", ""),
            o.trace.coflows().size(),
            flows.size(),
            framework.name().toLowerCase(Locale.ROOT),
            arrivals.name().toLowerCase(Locale.ROOT),
            arrivals == IdentifyWorkload.Arrivals.BATCH
                ? " (every " + a.get("batch-interval", "10") + " s)"
                : "",
            o.bandwidthText,
            round * 1000);
    if (!o.json) {
      out.println("CODA in the simulator: " + what);
    }
    List<SimResult> results = new ArrayList<>();
    Accuracy accuracy = null;
    for (Variant v : variants) {
      SchedulingPolicy policy = Policies.create(v.policy, v.config);
      ProgressBar bar = ProgressBar.forTerminal(err, v.label);
      SimResult r = sim.run(v.label, policy, v.grouping, bar == null ? ProgressListener.NONE : bar);
      if (bar != null) {
        bar.done();
      }
      if (v.grouping == Grouping.IDENTIFIED && accuracy == null) {
        accuracy = sim.lastAccuracy();
      }
      results.add(r);
      if (!o.json) {
        Reports.printTable(out, RunSummary.of(r, results.get(0)), o.bandwidthText);
        out.flush();
      }
    }
    Map<String, RunSummary> by = new HashMap<>();
    for (SimResult r : results) {
      by.put(r.policy(), RunSummary.of(r, results.get(0)));
    }
    RunSummary aalo = by.get("aalo");
    if (o.json) {
      for (SimResult r : results) {
        RunSummary s = by.get(r.policy());
        out.println(
            new Json()
                .put("run", r.policy())
                .put("framework", framework.name().toLowerCase(Locale.ROOT))
                .put("workload", arrivals.name().toLowerCase(Locale.ROOT))
                .put("coflows", r.coflows())
                .put("flows", flows.size())
                .put("avg_cct_s", s.overall().avg())
                .put("p95_cct_s", s.overall().p95())
                .put("avg_vs_fair", s.vsBaseline(Bin.ALL, Stats::avg))
                .put("avg_vs_aalo", ratio(s, aalo, Bin.ALL))
                .put("short_narrow_avg_vs_aalo", ratio(s, aalo, Bin.SHORT_NARROW))
                .put("precision", accuracy == null ? Double.NaN : accuracy.precision())
                .put("recall", accuracy == null ? Double.NaN : accuracy.recall()));
      }
      return 0;
    }
    out.printf(Locale.ROOT, "%nCODA summary: %s%n", what);
    if (accuracy != null) {
      out.printf(
          Locale.ROOT,
          "  identification (online, each flow's coflow when admitted): precision %.3f, recall %.3f%n",
          accuracy.precision(),
          accuracy.recall());
    }
    out.printf(
        Locale.ROOT,
        "  %-22s %10s %10s %10s %12s%n",
        "run",
        "avg_s",
        "avg/aalo",
        "avg/fair",
        "SN avg/aalo");
    for (SimResult r : results) {
      RunSummary s = by.get(r.policy());
      out.printf(
          Locale.ROOT,
          "  %-22s %10.3f %10.3f %10.3f %12.3f%n",
          r.policy(),
          s.overall().avg(),
          ratio(s, aalo, Bin.ALL),
          s.vsBaseline(Bin.ALL, Stats::avg),
          ratio(s, aalo, Bin.SHORT_NARROW));
    }
    String[][] gains = {
      {"coda-no-late-binding", "late binding"},
      {"coda-no-intra", "intra-coflow prioritisation"},
      {"coda-no-both", "both"}
    };
    for (String[] g : gains) {
      if (by.containsKey("coda") && by.containsKey(g[0])) {
        out.printf(
            Locale.ROOT,
            "  gain from %s (%s/coda): %.3f overall, %.3f short-narrow%n",
            g[1],
            g[0].substring("coda-".length()),
            gain(by, g[0], Bin.ALL),
            gain(by, g[0], Bin.SHORT_NARROW));
      }
    }
    return 0;
  }

  private static double ratio(RunSummary s, RunSummary base, Bin bin) {
    return s.cct().get(bin).avg() / base.cct().get(bin).avg();
  }

  private static double gain(Map<String, RunSummary> by, String without, Bin bin) {
    return ratio(by.get(without), by.get("coda"), bin);
  }

  private static double number(Args a, String key, String dflt) throws UsageException {
    String v = a.get(key, dflt);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new UsageException("coflow sim: --" + key + " must be a number, got '" + v + "'");
    }
  }

  private static <E extends Enum<E>> E parseEnum(
      Class<E> type, String option, String value, String valid) throws UsageException {
    try {
      return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow sim: " + option + " is " + valid + ", got '" + value + "'");
    }
  }
}
