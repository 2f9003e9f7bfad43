package org.coflow.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClusterStateTest {
  @Test
  void flowsKeepDenseIndicesAcrossRemovals() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow a = new Coflow("a", 0, 0, 1);
    s.addCoflow(a);
    Flow f0 = s.addFlow(a, 0, 1, 10, 0);
    Flow f1 = s.addFlow(a, 1, 2, 20, 0);
    Flow f2 = s.addFlow(a, 2, 3, 30, 0);
    s.addSent(f0, 10);
    assertFalse(s.finishFlow(f0, 1));
    assertEquals(2, s.flows().size());
    for (int i = 0; i < s.flows().size(); i++) {
      assertEquals(i, s.flows().get(i).index());
    }
    assertEquals(2, a.activeFlows().size());
    assertEquals(10, a.bytesSent());
    assertFalse(s.finishFlow(f2, 2));
    assertSame(f1, s.flows().get(0));
    long version = s.membershipVersion();
    assertTrue(s.finishFlow(f1, 3));
    assertTrue(s.coflows().isEmpty());
    assertEquals(3, a.finishTime());
    assertTrue(s.membershipVersion() > version);
    assertThrows(IllegalStateException.class, () -> s.finishFlow(f1, 4));
  }

  @Test
  void rejectsBadFlowsWithTheValue() {
    ClusterState s = new ClusterState(Fabric.uniform(2, 100));
    Coflow a = new Coflow("a", 0, 0, 1);
    s.addCoflow(a);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> s.addFlow(a, 0, 5, 10, 0));
    assertTrue(e.getMessage().contains("port 5"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> s.addFlow(a, 0, 1, -3, 0));
    assertTrue(e.getMessage().contains("-3"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> s.addCoflow(new Coflow("early", 1, -1, 1)));
    assertThrows(IllegalArgumentException.class, () -> Fabric.uniform(2, 0));
  }
}
