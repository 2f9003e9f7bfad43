package org.coflow.master.identify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The master's identifier over rounds with departures: a shuffle's straggler that the master hears
 * of only after its siblings ended (agents report a flow after its first 100 KB, and end one after
 * an idle gap) still joins their coflow, as in the CI run where {@code CodaAgentSparkTest} saw one
 * shuffle split in two; departed flows are let go once no new start can reach them.
 */
class CodaCoflowIdentifierTest {
  private static final long T0 = 1_795_919_731_365L;

  private final CodaCoflowIdentifier ids =
      new CodaCoflowIdentifier(CodaMetric.PAPER_SPARK_HADOOP, 1.0, 0.5, 13562);

  private static CoflowIdentifier.Arrival flow(long handle, long startOffsetMillis, int dstPort) {
    return new CoflowIdentifier.Arrival(
        handle,
        "h1",
        handle,
        "h1",
        "h2",
        T0 + startOffsetMillis,
        Map.of(CodaCoflowIdentifier.DST_PORT, Integer.toString(dstPort), "src_port", "33241"));
  }

  private List<String> round(CoflowIdentifier.Arrival... arrivals) {
    return ids.identify(List.of(arrivals), T0 + 3000);
  }

  @Test
  void aStragglerHeardOfAfterItsSiblingsLeftJoinsTheirCoflow() {
    List<String> siblings =
        round(flow(1, 0, 47320), flow(2, 18, 34876), flow(3, 73, 34860), flow(4, 91, 34408));
    assertEquals(1, new java.util.HashSet<>(siblings).size(), "one coflow: " + siblings);
    for (long h = 1; h <= 4; h++) {
      ids.departed(h);
    }
    assertEquals(0, ids.flows());
    assertEquals(4, ids.departedHeld());

    // 0.39 s after the first sibling started, 0.3 s after the last: within ε (0.75 apart).
    List<String> straggler = round(flow(5, 390, 47306));
    assertEquals(siblings.get(0), straggler.get(0), "the straggler joins its siblings' coflow");
    assertEquals(1, ids.flows());
    assertEquals(4, ids.departedHeld(), "0.39 s is within ε's time reach (0.54 s) of them all");

    // Two seconds later: beyond every departed sibling's reach; they are let go, and the new flow
    // is a coflow of its own.
    List<String> next = round(flow(6, 2000, 47320));
    assertNotEquals(siblings.get(0), next.get(0), "a flow 2 s later is another coflow");
    assertEquals(0, ids.departedHeld(), "departed flows beyond reach are let go");
    assertEquals(2, ids.flows());
  }

  @Test
  void departedFlowsAreHeldOnlyWithinReachOfTheNewestStart() {
    List<CoflowIdentifier.Arrival> wave = new ArrayList<>();
    long handle = 0;
    for (int round = 0; round < 50; round++) {
      wave.clear();
      for (int i = 0; i < 10; i++) {
        wave.add(flow(++handle, round * 200L, 40000 + i));
      }
      ids.identify(wave, T0 + round * 200L);
      for (CoflowIdentifier.Arrival a : wave) {
        ids.departed(a.handle());
      }
      // A flow starts every 200 ms and the reach is 0.54 s: flows of this round and the two
      // before it may still be near a new one, no older ones are held.
      assertEquals(Math.min(round + 1, 3) * 10, ids.departedHeld(), "round " + round);
    }
    assertEquals(0, ids.flows());
  }
}
