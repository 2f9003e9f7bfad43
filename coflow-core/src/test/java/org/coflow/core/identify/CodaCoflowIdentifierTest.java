package org.coflow.core.identify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The master's identifier over rounds with departures: a shuffle's straggler that the master hears
 * of only after its siblings ended (agents report a flow after its first 100 KB, and end one after
 * an idle gap) still joins their coflow, as it did not in the CI run where {@code
 * CodaAgentSparkTest} saw one shuffle split in two; departed flows are let go once no flow near
 * them can still be reported. The start offsets and ports are the CI run's.
 */
class CodaCoflowIdentifierTest {
  private static final long T0 = 1_795_919_731_365L;

  /** ε's time reach with the paper's weights: 1 / sqrt(3.472) s. */
  private static final double REACH = 0.537;

  private final CodaCoflowIdentifier ids =
      new CodaCoflowIdentifier(CodaMetric.PAPER_SPARK_HADOOP, 1.0, 0.5, 13562, 2000);

  private static CoflowIdentifier.Arrival flow(
      long handle, String src, String dst, long startOffsetMillis, int dstPort) {
    return new CoflowIdentifier.Arrival(
        handle,
        src,
        handle,
        src,
        dst,
        T0 + startOffsetMillis,
        Map.of(CodaCoflowIdentifier.DST_PORT, Integer.toString(dstPort), "src_port", "33241"));
  }

  private static CoflowIdentifier.Arrival flow(long handle, long startOffsetMillis, int dstPort) {
    return flow(handle, "h1", "h2", startOffsetMillis, dstPort);
  }

  private List<String> round(long atOffsetMillis, CoflowIdentifier.Arrival... arrivals) {
    return ids.identify(List.of(arrivals), T0 + atOffsetMillis);
  }

  /** Four siblings, reported at once and then all departed; returns their coflow id. */
  private String siblingsLeft() {
    List<String> siblings =
        round(200, flow(1, 0, 47320), flow(2, 18, 34876), flow(3, 73, 34860), flow(4, 91, 34408));
    assertEquals(1, new HashSet<>(siblings).size(), "one coflow: " + siblings);
    for (long h = 1; h <= 4; h++) {
      ids.departed(h);
    }
    assertEquals(0, ids.flows());
    assertEquals(4, ids.departedHeld());
    return siblings.get(0);
  }

  @Test
  void aStragglerHeardOfAfterItsSiblingsLeftJoinsTheirCoflow() {
    String coflow = siblingsLeft();

    // Started 0.39 s after the first sibling (within ε of it), reported 0.6 s later.
    assertEquals(coflow, round(1000, flow(5, 390, 47306)).get(0), "the straggler joins them");
    assertEquals(1, ids.flows());
    assertEquals(4, ids.departedHeld());

    // Past every sibling's start by more than the reach plus the 2 s report delay: they are let
    // go, and a new flow is a coflow of its own.
    List<String> next = round(2000 + (long) (1000 * (REACH + 2.0)), flow(6, 2700, 47320));
    assertEquals(0, ids.departedHeld(), "departed flows no longer reachable are let go");
    assertNotEquals(coflow, next.get(0), "a flow 2.7 s later is another coflow");
    assertEquals(2, ids.flows());
  }

  @Test
  void flowsReportedBeforeTheStragglerDoNotPushItsSiblingsOut() {
    String coflow = siblingsLeft();
    // Another job's flow between other hosts, started 0.7 s after the siblings and reported
    // before the straggler: the newest start is then past every sibling's by more than ε's reach.
    String other = round(750, flow(5, "h3", "h4", 700, 40000)).get(0);
    assertNotEquals(coflow, other, "another community, another coflow");
    assertEquals(4, ids.departedHeld(), "the siblings are held on the master's clock");
    assertEquals(coflow, round(1000, flow(6, 390, 47306)).get(0), "the straggler joins them");
  }

  @Test
  void departedFlowsAreHeldOnlyForTheReachPlusTheReportDelay() {
    List<CoflowIdentifier.Arrival> wave = new ArrayList<>();
    long handle = 0;
    for (int round = 0; round < 50; round++) {
      wave.clear();
      for (int i = 0; i < 10; i++) {
        wave.add(flow(++handle, round * 200L, 40000 + i));
      }
      ids.identify(wave, T0 + round * 200L + 100);
      for (CoflowIdentifier.Arrival a : wave) {
        ids.departed(a.handle());
      }
      // A wave starts every 200 ms and is reported 100 ms later; those that started within 2.537
      // s of a round's time (this one's and the twelve before it) are held.
      assertEquals(Math.min(round + 1, 13) * 10, ids.departedHeld(), "round " + round);
    }
    assertEquals(0, ids.flows());
  }
}
