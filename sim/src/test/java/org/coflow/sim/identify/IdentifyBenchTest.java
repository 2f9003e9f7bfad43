package org.coflow.sim.identify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.coflow.core.identify.CodaMetric;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.Test;

class IdentifyBenchTest {
  private static Trace trace() throws Exception {
    return TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt"));
  }

  @Test
  void workloadFollowsTheStartTimeModels() throws Exception {
    Trace t = trace();
    for (IdentifyWorkload.Framework fw :
        List.of(IdentifyWorkload.Framework.SPARK, IdentifyWorkload.Framework.HADOOP)) {
      List<IdentifyWorkload.Flow> flows =
          IdentifyWorkload.generate(t, fw, IdentifyWorkload.Arrivals.NORMAL, 10, 5000, 3);
      assertEquals(5000, flows.size());
      Map<String, double[]> span = new HashMap<>();
      for (IdentifyWorkload.Flow f : flows) {
        span.merge(
            f.coflow(),
            new double[] {f.startSec(), f.startSec()},
            (a, b) -> new double[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
        assertEquals(fw == IdentifyWorkload.Framework.HADOOP, f.hadoop());
        if (f.hadoop()) {
          assertEquals(13562, f.srcPort());
        }
        assertTrue(f.endSec() > f.startSec());
      }
      double widest = span.values().stream().mapToDouble(s -> s[1] - s[0]).max().orElse(0);
      if (fw == IdentifyWorkload.Framework.SPARK) {
        assertTrue(widest <= 0.1, "Spark flows of a coflow start within 100 ms: " + widest);
      } else {
        assertTrue(
            widest > 0.5 && widest < 3, "Hadoop: within 1 s plus an exponential delay: " + widest);
      }
    }
    // Spark flows to one reducer share its executor port.
    List<IdentifyWorkload.Flow> spark =
        IdentifyWorkload.generate(
            t, IdentifyWorkload.Framework.SPARK, IdentifyWorkload.Arrivals.NORMAL, 10, 2000, 3);
    Map<String, Set<Integer>> ports = new HashMap<>();
    for (IdentifyWorkload.Flow f : spark) {
      ports.computeIfAbsent(f.coflow() + "/" + f.dst(), k -> new HashSet<>()).add(f.dstPort());
    }
    assertTrue(ports.values().stream().allMatch(s -> s.size() == 1));
  }

  @Test
  void codaIsAccurateOnNormalSparkAndBaselinesRunOnSampledRounds() throws Exception {
    List<IdentifyWorkload.Flow> flows =
        IdentifyWorkload.generate(
            trace(),
            IdentifyWorkload.Framework.SPARK,
            IdentifyWorkload.Arrivals.NORMAL,
            10,
            3000,
            1);
    List<IdentifyBench.Result> r =
        IdentifyBench.run(flows, CodaMetric.PAPER_SPARK_HADOOP, 1.0, 0.5, 0.1, 2, 2, true);
    assertEquals(
        List.of("coda", "r-dbscan", "coda@r-dbscan-rounds", "dbscan", "coda@dbscan-rounds"),
        r.stream().map(IdentifyBench.Result::algorithm).toList());
    IdentifyBench.Result coda = r.get(0);
    assertTrue(coda.precision() > 0.9 && coda.recall() > 0.9, coda.toString());
    assertEquals(2, r.get(1).rounds());
    assertEquals(2, r.get(3).rounds());
    assertEquals(Set.of(1, 4), IdentifyBench.sample(6, 2));
    assertEquals(Set.of(0, 1), IdentifyBench.sample(2, 5));
  }
}
