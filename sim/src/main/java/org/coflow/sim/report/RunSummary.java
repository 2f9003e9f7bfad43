package org.coflow.sim.report;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.coflow.sim.engine.SimResult;

/**
 * One run's CCT statistics overall and per bin, normalised to a baseline run (fair sharing) of the
 * same trace and to the isolated lower bound (each coflow alone on the fabric).
 */
public record RunSummary(
    SimResult run, Map<Bin, Stats> cct, Map<Bin, Stats> lowerBound, Map<Bin, Stats> baseline) {

  public static RunSummary of(SimResult run, SimResult baseline) {
    return new RunSummary(
        run,
        byBin(run, run.cct()),
        byBin(run, run.lowerBound()),
        baseline == null ? null : byBin(baseline, baseline.cct()));
  }

  static Map<Bin, Stats> byBin(SimResult r, double[] values) {
    Map<Bin, Stats> out = new EnumMap<>(Bin.class);
    for (Bin bin : Bin.values()) {
      double[] picked = new double[r.coflows()];
      int k = 0;
      for (int i = 0; i < r.coflows(); i++) {
        if (in(bin, r, i)) {
          picked[k++] = values[i];
        }
      }
      out.put(bin, Stats.of(java.util.Arrays.copyOf(picked, k)));
    }
    return out;
  }

  public static boolean in(Bin bin, SimResult r, int i) {
    return bin == Bin.ALL || Bin.of(r.longestFlow()[i], r.flows()[i]) == bin;
  }

  public Stats overall() {
    return cct.get(Bin.ALL);
  }

  /** This run's statistic over the baseline's (below 1 = faster than fair sharing), or NaN. */
  public double vsBaseline(Bin bin, ToDoubleFunction<Stats> stat) {
    return baseline == null
        ? Double.NaN
        : stat.applyAsDouble(cct.get(bin)) / stat.applyAsDouble(baseline.get(bin));
  }

  /**
   * This run's statistic over the same statistic of the isolated lower bounds (at least 1 for avg).
   */
  public double vsLowerBound(Bin bin, ToDoubleFunction<Stats> stat) {
    return stat.applyAsDouble(cct.get(bin)) / stat.applyAsDouble(lowerBound.get(bin));
  }
}
