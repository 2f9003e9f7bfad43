package org.coflow.core.identify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** CODA's identification on small hand-made cases with known answers. */
class RoughDbscanTest {
  private static final CodaMetric M = CodaMetric.PAPER_SPARK_HADOOP;

  private static FlowPoint spark(long id, double t, int dst, int port) {
    return new FlowPoint(id, t, 0, dst, port, false, 0);
  }

  @Test
  void metricFollowsThePapersWeights() {
    FlowPoint a = spark(1, 10.0, 1, 40000);
    // 100 ms apart, same aggregation: sqrt(3.825 * 0.01)
    assertEquals(Math.sqrt(0.03825), M.distance(a, spark(2, 10.1, 1, 40000)), 1e-12);
    // another executor port adds 0.217
    assertEquals(Math.sqrt(0.03825 + 0.217), M.distance(a, spark(3, 10.1, 2, 40001)), 1e-12);
    // another community adds 5.431
    assertEquals(
        Math.sqrt(5.431), M.distance(a, new FlowPoint(4, 10.0, 0, 1, 40000, false, 7)), 1e-12);
    // Hadoop: ports carry nothing; Spark and Hadoop never mix
    FlowPoint h1 = new FlowPoint(5, 3.0, 0, 1, 50000, true, 0);
    FlowPoint h2 = new FlowPoint(6, 3.5, 0, 2, 50001, true, 0);
    assertEquals(Math.sqrt(3.472 * 0.25), M.distance(h1, h2), 1e-12);
    assertEquals(Double.POSITIVE_INFINITY, M.distance(a, h1));
    assertThrows(IllegalArgumentException.class, () -> new CodaMetric(0, 1, 1, 1, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new RoughDbscan(M, 1, 2));
  }

  @Test
  void twoCoflowsSecondsApartAreFoundWithStableIds() {
    RoughDbscan c = new RoughDbscan(M, 1.0, 0.5);
    Map<Long, String> truth = new HashMap<>();
    Random r = new Random(1);
    for (int i = 0; i < 20; i++) {
      c.add(spark(i, 100 + 0.1 * r.nextDouble(), i % 4, 40000 + i % 4));
      truth.put((long) i, "A");
      c.add(spark(100 + i, 103 + 0.1 * r.nextDouble(), i % 3, 41000 + i % 3));
      truth.put(100L + i, "B");
    }
    Map<Long, Long> found = c.clusters();
    Accuracy acc = Accuracy.of(found, truth);
    assertEquals(1.0, acc.precision());
    assertEquals(1.0, acc.recall());
    assertTrue(c.leaders() < 40, "leaders summarise flows: " + c.leaders());
    long idA = found.get(0L);
    assertNotEquals(idA, (long) found.get(100L));
    // A new round: more flows of A arrive, some leave; A keeps its id.
    c.add(spark(50, 100.05, 9, 40009));
    truth.put(50L, "A");
    for (long i = 1; i < 10; i++) {
      c.remove(i);
    }
    Map<Long, Long> again = c.clusters();
    assertEquals(idA, (long) again.get(50L));
    assertEquals(idA, (long) again.get(15L));
    assertEquals(32, c.flows());
  }

  @Test
  void aFlowBetweenTwoCoflowsChainsThemAsSingleLinkageDoes() {
    // minPts = 1: a flow halfway between two coflows joins them (the paper's reason for late
    // binding and its precision loss under batch arrivals).
    RoughDbscan c = new RoughDbscan(M, 1.0, 0.2);
    for (int i = 0; i < 5; i++) {
      c.add(spark(i, 10 + 0.01 * i, 1, 40000));
      c.add(spark(10 + i, 11 + 0.01 * i, 1, 40000));
    }
    Map<Long, Long> apart = c.clusters();
    assertNotEquals(apart.get(0L), apart.get(10L), "1 s apart: sqrt(3.825) > ε");
    c.add(spark(99, 10.5, 1, 40000));
    Map<Long, Long> joined = c.clusters();
    assertEquals(joined.get(0L), joined.get(10L), "the bridge links them");
    c.remove(99);
    assertNotEquals(
        c.clusters().get(0L), c.clusters().get(10L), "and its departure splits them again");
  }

  @Test
  void incrementalAgreesWithRoughDbscanFromScratchAndDbscanOnRandomFlows() {
    Random r = new Random(7);
    List<FlowPoint> flows = new ArrayList<>();
    Map<Long, String> truth = new HashMap<>();
    for (int c = 0; c < 30; c++) {
      double start = c * 4.0 + r.nextDouble();
      boolean hadoop = c % 3 == 0;
      for (int f = 0; f < 40; f++) {
        long id = c * 1000L + f;
        double t = start + (hadoop ? r.nextDouble() : 0.1 * r.nextDouble());
        flows.add(
            new FlowPoint(
                id,
                t,
                r.nextInt(20),
                r.nextInt(20),
                hadoop ? r.nextInt(60000) : 40000 + c,
                hadoop,
                0));
        truth.put(id, "c" + c);
      }
    }
    RoughDbscan inc = new RoughDbscan(M, 1.0, 0.5);
    flows.forEach(inc::add);
    Accuracy coda = Accuracy.of(inc.clusters(), truth);
    Accuracy rough = Accuracy.of(Baselines.roughDbscan(flows, M, 1.0, 0.5), truth);
    Accuracy plain = Accuracy.of(Baselines.dbscan(flows, M, 1.0), truth);
    assertTrue(coda.precision() > 0.95 && coda.recall() > 0.95, "coda " + coda);
    assertTrue(plain.precision() > 0.95 && plain.recall() > 0.95, "dbscan " + plain);
    assertTrue(rough.precision() > 0.95 && rough.recall() > 0.95, "r-dbscan " + rough);
    // Uniform weights blur the time scale (and let ports split Spark coflows): worse.
    Accuracy uniform = Accuracy.of(Baselines.dbscan(flows, CodaMetric.UNIFORM, 1.0), truth);
    assertTrue(
        uniform.recall() + uniform.precision() < coda.recall() + coda.precision(),
        "uniform " + uniform);
  }

  @Test
  void accuracyIsFlowWeightedPurity() {
    Map<Long, String> truth = Map.of(1L, "A", 2L, "A", 3L, "A", 4L, "B");
    // {1,2} {3,4}: precision (2 + 1) / 4, recall (2 + 1) / 4
    Accuracy a = Accuracy.of(Map.of(1L, 10L, 2L, 10L, 3L, 11L, 4L, 11L), truth);
    assertEquals(0.75, a.precision(), 1e-12);
    assertEquals(0.75, a.recall(), 1e-12);
    Accuracy all = Accuracy.of(Map.of(1L, 1L, 2L, 1L, 3L, 1L, 4L, 1L), truth);
    assertEquals(0.75, all.precision(), 1e-12);
    assertEquals(1.0, all.recall(), 1e-12);
  }

  @Test
  void communitiesAreConnectedComponentsOfWhoTalksToWhom() {
    Communities c = new Communities();
    c.observe(1, 2);
    c.observe(3, 4);
    assertNotEquals(c.of(1), c.of(3));
    assertEquals(c.of(1), c.of(2));
    c.observe(2, 4);
    assertEquals(c.of(1), c.of(3));
    assertEquals(9, c.of(9));
  }
}
