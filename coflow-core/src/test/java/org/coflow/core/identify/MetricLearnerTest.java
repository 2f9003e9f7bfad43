package org.coflow.core.identify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The learned metric beats uniform weights on held-out flows: Spark coflows of two tenants (two
 * communities) overlap in time, and each coflow's flows go to several executors (ports).
 */
class MetricLearnerTest {

  /**
   * Coflows from {@code first}: tenant alternates, 0.3 s apart, 4 reducers each with its own port.
   */
  static List<MetricLearner.Labelled> workload(int first, int coflows, long seed) {
    Random r = new Random(seed);
    List<MetricLearner.Labelled> out = new ArrayList<>();
    for (int c = first; c < first + coflows; c++) {
      int tenant = c % 2;
      double start = c * 0.3;
      for (int red = 0; red < 4; red++) {
        int dst = tenant * 10 + r.nextInt(10);
        int port = 40000 + c * 10 + red;
        for (int m = 0; m < 6; m++) {
          long id = c * 1000L + red * 10 + m;
          out.add(
              new MetricLearner.Labelled(
                  new FlowPoint(
                      id,
                      start + 0.1 * r.nextDouble(),
                      tenant * 10 + r.nextInt(10),
                      dst,
                      port,
                      false,
                      tenant),
                  "c" + c));
        }
      }
    }
    return out;
  }

  private static double score(CodaMetric m, List<MetricLearner.Labelled> flows) {
    RoughDbscan d = new RoughDbscan(m, 1.0, 0.3);
    Map<Long, String> truth = new HashMap<>();
    for (MetricLearner.Labelled l : flows) {
      d.add(l.flow());
      truth.put(l.flow().id(), l.coflow());
    }
    Accuracy a = Accuracy.of(d.clusters(), truth);
    return (a.precision() + a.recall()) / 2;
  }

  @Test
  void learnedWeightsBeatUniformOnHeldOutFlows(@TempDir Path tmp) throws Exception {
    CodaMetric learned = MetricLearner.learn(workload(0, 40, 1), 4000, 5.0, 7);
    double[] w = learned.weights();
    assertEquals(3.825, w[0], 1e-9, "time weight anchored to the paper's scale");
    assertTrue(w[1] > w[2], "community outweighs ports: " + java.util.Arrays.toString(w));
    List<MetricLearner.Labelled> heldOut = workload(100, 40, 2);
    double ours = score(learned, heldOut);
    double uniform = score(CodaMetric.UNIFORM, heldOut);
    System.out.printf(
        "learned weights %s: accuracy %.4f on held-out flows, uniform %.4f%n",
        java.util.Arrays.toString(w), ours, uniform);
    assertTrue(ours > uniform + 0.1, "learned " + ours + " vs uniform " + uniform);
    assertTrue(ours > 0.95, "learned " + ours);

    Path f = tmp.resolve("weights.properties");
    learned.store(f, "test");
    assertEquals(
        java.util.Arrays.toString(w), java.util.Arrays.toString(CodaMetric.load(f).weights()));
    Files.writeString(f, "spark.time=1\n");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CodaMetric.load(f));
    assertTrue(e.getMessage().contains("spark.community"), e.getMessage());
    Files.writeString(
        f,
        "spark.time=x\nspark.community=1\nspark.port=1\nhadoop.time=1\nhadoop.community=1\nhadoop.port=1\n");
    e = assertThrows(IllegalArgumentException.class, () -> CodaMetric.load(f));
    assertTrue(e.getMessage().contains("spark.time = 'x'"), e.getMessage());
  }
}
