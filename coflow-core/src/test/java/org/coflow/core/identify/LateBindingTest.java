package org.coflow.core.identify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Coda;
import org.coflow.core.policy.Schedule;
import org.junit.jupiter.api.Test;

/**
 * Late binding on a hand-made case: a flow of a small coflow A that identification put into a big,
 * already demoted coflow B (it started 0.8 s after A's flows, closer to B's). Without late binding
 * it waits behind A as a straggler in B's queue; with d = 2 it lies in A's extension, A serves it
 * first and it stays bound to A.
 */
class LateBindingTest {
  private static final double MIB = 1 << 20;

  private final CodaIdentifier ids = new CodaIdentifier(CodaMetric.PAPER_SPARK_HADOOP, 1.0, 0.5);
  private final ClusterState state = new ClusterState(Fabric.uniform(4, 100 * MIB));
  private final Map<Flow, Long> idOf = new HashMap<>();
  private Flow straggler;
  private Coflow coflowA;
  private Coflow coflowB;

  private Flow flow(Coflow c, long id, double start, int src, int dst, int dstPort, double size) {
    ids.add(id, start, src, dst, dstPort, false);
    Flow f = state.addFlow(c, src, dst, size, 0);
    idOf.put(f, id);
    return f;
  }

  private void build() {
    coflowA = new Coflow("A", 0, 0, 1);
    coflowB = new Coflow("B", 1, 0, 1);
    state.addCoflow(coflowA);
    state.addCoflow(coflowB);
    flow(coflowA, 1, 10.00, 0, 2, 40000, MIB);
    flow(coflowA, 2, 10.05, 1, 2, 40000, MIB);
    Flow big = flow(coflowB, 10, 11.20, 0, 3, 41000, 500 * MIB);
    flow(coflowB, 11, 11.25, 1, 3, 41000, 500 * MIB);
    // A's true flow, but 0.8 s after A's (distance 1.56 > ε) and 0.3 s before B's (0.59 < ε).
    straggler = flow(coflowB, 3, 10.90, 0, 2, 40000, MIB);
    state.addSent(big, 50 * MIB); // B has left D-CLAS's first queue
    ids.round();
  }

  private Coda coda(double d) {
    Coda c = new Coda(10, 10 * MIB, 10, 0, 5, MIB, 10, d);
    c.lateBinding((s, diameter) -> ids.extend(s, f -> idOf.getOrDefault(f, -1L), diameter));
    return c;
  }

  @Test
  void identificationPutsTheBoundaryFlowInTheWrongCoflow() {
    build();
    assertEquals(ids.clusterOf(10), ids.clusterOf(3), "identified with B");
    assertNotEquals(ids.clusterOf(1), ids.clusterOf(3));
    assertEquals(ids.clusterOf(1), ids.clusterOf(2));
  }

  @Test
  void withoutLateBindingTheBoundaryFlowIsAStraggler() {
    build();
    Schedule s = coda(0).schedule(state, 0);
    int a = s.priority(coflowA.activeFlows().get(0).index());
    assertTrue(s.priority(straggler.index()) > a, "served after A, with B");
  }

  @Test
  void lateBindingServesTheBoundaryFlowWithItsTrueCoflowAndKeepsItThere() {
    build();
    Coda coda = coda(2.0);
    Schedule s = coda.schedule(state, 0);
    int a = s.priority(coflowA.activeFlows().get(0).index());
    assertEquals(a, s.priority(straggler.index()), "scheduled as a flow of A");
    assertTrue(s.rate(straggler.index()) > 0);
    // B's flows far from A are not pulled in.
    for (Flow f : coflowB.activeFlows()) {
      if (f != straggler) {
        assertTrue(s.priority(f.index()) > a);
      }
    }
    // Bound for good: even once A is demoted below B, the flow stays with A.
    for (Flow f : coflowA.activeFlows()) {
      state.addSent(f, 0.99 * MIB);
    }
    Flow extraA = state.addFlow(coflowA, 1, 3, 2000 * MIB, 1);
    state.addSent(extraA, 1000 * MIB);
    Schedule later = coda.schedule(state, 1);
    int b = later.priority(coflowB.activeFlows().get(0).index());
    int a2 = later.priority(coflowA.activeFlows().get(0).index());
    assertTrue(a2 > b, "A is now behind B");
    assertTrue(later.priority(straggler.index()) >= a2, "the bound flow moved with A");
  }
}
