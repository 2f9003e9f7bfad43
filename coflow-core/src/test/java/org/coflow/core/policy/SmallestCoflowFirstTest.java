package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

class SmallestCoflowFirstTest {
  @Test
  void registeredThroughItsProviderAfterTheBuiltInPolicies() {
    assertEquals("scf", Policies.NAMES.get(Policies.NAMES.size() - 1));
    assertTrue(Policies.create("scf", Config.defaults()) instanceof SmallestCoflowFirst);
  }

  @Test
  void aSmallCoflowGoesBeforeABigOneThatArrivedFirst() {
    ClusterState s = new ClusterState(Fabric.uniform(2, 10));
    Coflow big = new Coflow("big", 0, 0, 1);
    Coflow small = new Coflow("small", 1, 1, 1);
    s.addCoflow(big);
    s.addCoflow(small);
    Flow b = s.addFlow(big, 0, 1, 100, 0);
    Flow m = s.addFlow(small, 0, 1, 10, 1);
    Schedule sch = new SmallestCoflowFirst().schedule(s, 1);
    assertEquals(10, sch.rate(m.index()), 1e-9);
    assertEquals(0, sch.rate(b.index()), 1e-9);
  }

  @Test
  void theKeyIsTheSizeAtArrivalNotWhatIsLeft() {
    // The big coflow has 5 bytes left of 100, the other 20 of 20: SEBF would serve the big one
    // first, SCF the one of 20 bytes.
    ClusterState s = new ClusterState(Fabric.uniform(2, 10));
    Coflow big = new Coflow("big", 0, 0, 1);
    Coflow mid = new Coflow("mid", 1, 1, 1);
    s.addCoflow(big);
    s.addCoflow(mid);
    Flow b = s.addFlow(big, 0, 1, 100, 0);
    s.addSent(b, 95);
    Flow m = s.addFlow(mid, 0, 1, 20, 1);
    Schedule sch = new SmallestCoflowFirst().schedule(s, 1);
    assertEquals(10, sch.rate(m.index()), 1e-9);
    assertEquals(0, sch.rate(b.index()), 1e-9);
    Schedule sebf = new Varys().schedule(s, 1);
    assertEquals(10, sebf.rate(b.index()), 1e-9);
  }

  @Test
  void coflowsOfUnknownSizeComeLast() {
    ClusterState s = new ClusterState(Fabric.uniform(2, 10));
    Coflow blind = new Coflow("blind", 0, 0, 1);
    Coflow known = new Coflow("known", 1, 1, 1);
    s.addCoflow(blind);
    s.addCoflow(known);
    Flow u = s.addFlow(blind, 0, 1, Flow.UNKNOWN, 0);
    Flow k = s.addFlow(known, 0, 1, 1_000_000, 1);
    Schedule sch = new SmallestCoflowFirst().schedule(s, 1);
    assertEquals(10, sch.rate(k.index()), 1e-9);
    assertEquals(0, sch.rate(u.index()), 1e-9);
  }
}
