package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.PolicyType;
import org.junit.jupiter.api.Test;

class PoliciesTest {
  @Test
  void everyNameCreatesItsPolicy() {
    for (String name : Policies.NAMES) {
      SchedulingPolicy p = Policies.create(name, Config.defaults());
      assertEquals(name, p.name());
      assertEquals(name.equals("sincronia") ? PolicyType.ORDER : PolicyType.RATE, p.type());
    }
  }

  @Test
  void unknownNameListsValidOnes() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Policies.create("sjf", Config.defaults()));
    assertTrue(
        e.getMessage().contains("'sjf'") && e.getMessage().contains("fair, aalo, varys"),
        e.getMessage());
  }

  @Test
  void bssiPutsTheCoflowThatLoadsTheBottleneckMostLast() {
    // Port 0's uplink is the bottleneck (60 bytes); A puts 50 there, B 10: A goes last.
    ClusterState s = new ClusterState(Fabric.uniform(3, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    s.addFlow(a, 0, 1, 50, 0);
    s.addFlow(b, 0, 2, 10, 0);
    s.addFlow(b, 1, 2, 5, 0);
    assertEquals(List.of(b, a), Sincronia.bssi(s));
  }

  @Test
  void everyPolicyOrdersEveryFlowOnceAndStaysWithinCapacity() {
    for (String name : Policies.NAMES) {
      ClusterState s = new ClusterState(Fabric.uniform(4, 10));
      for (int k = 0; k < 3; k++) {
        Coflow c = new Coflow("c" + k, k, 0, 1);
        s.addCoflow(c);
        for (int m = 0; m < 4; m++) {
          s.addFlow(c, m, (m + k) % 4, 10 + k, 0);
        }
      }
      Schedule sch = Policies.create(name, Config.defaults()).schedule(s, 0);
      assertEquals(s.flows().size(), sch.orderSize(), name);
      double[] up = new double[4];
      double[] down = new double[4];
      for (int i = 0; i < s.flows().size(); i++) {
        up[s.flows().get(i).src()] += sch.rate(i);
        down[s.flows().get(i).dst()] += sch.rate(i);
      }
      for (int p = 0; p < 4; p++) {
        assertTrue(up[p] <= 10 + 1e-6 && down[p] <= 10 + 1e-6, name + " port " + p);
        // Every port has flows both ways here, so a work-conserving schedule saturates them all.
        assertEquals(10, up[p], 1e-6, name + " uplink " + p);
      }
    }
  }
}
