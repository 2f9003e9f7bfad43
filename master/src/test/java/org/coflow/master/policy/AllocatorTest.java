package org.coflow.master.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Coflow;
import org.coflow.api.model.Fabric;
import org.coflow.api.model.Flow;
import org.junit.jupiter.api.Test;

class AllocatorTest {
  @Test
  void waterFillingGivesUnusedShareToTheOtherFlows() {
    // Port 2's downlink has three flows (4 each of 12); A shares port 0's uplink with one of them
    // and gets the remaining 8, not 6.
    ClusterState s = new ClusterState(Fabric.uniform(5, 12));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow a = s.addFlow(c, 0, 1, 100, 0);
    Flow b0 = s.addFlow(c, 0, 2, 100, 0);
    Flow b1 = s.addFlow(c, 3, 2, 100, 0);
    Flow b2 = s.addFlow(c, 4, 2, 100, 0);
    Schedule sch = Schedule.empty(s);
    PortBudget budget = new PortBudget(s.fabric());
    new Allocator(5).maxMinFair(s.flows(), budget, sch);
    assertEquals(8, sch.rate(a.index()), 1e-9);
    assertEquals(4, sch.rate(b0.index()), 1e-9);
    assertEquals(4, sch.rate(b1.index()), 1e-9);
    assertEquals(4, sch.rate(b2.index()), 1e-9);
    assertEquals(0, budget.up(0), 1e-9);
    assertEquals(0, budget.down(2), 1e-9);
    assertEquals(4, budget.down(1), 1e-9);
  }

  @Test
  void maddFinishesAllFlowsOfACoflowTogether() {
    ClusterState s = new ClusterState(Fabric.uniform(3, 10));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow big = s.addFlow(c, 0, 2, 40, 0);
    Flow small = s.addFlow(c, 1, 2, 10, 0);
    Schedule sch = Schedule.empty(s);
    double gamma = new Allocator(3).madd(c, new PortBudget(s.fabric()), sch);
    assertEquals(5, gamma, 1e-9); // port 2 receives 50 bytes at 10/s
    assertEquals(8, sch.rate(big.index()), 1e-9);
    assertEquals(2, sch.rate(small.index()), 1e-9);
  }

  @Test
  void greedyServesInOrder() {
    ClusterState s = new ClusterState(Fabric.uniform(3, 10));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow first = s.addFlow(c, 0, 2, 40, 0);
    Flow second = s.addFlow(c, 1, 2, 10, 0);
    Schedule sch = Schedule.empty(s);
    new Allocator(3).greedy(c.activeFlows(), new PortBudget(s.fabric()), sch);
    assertEquals(10, sch.rate(first.index()), 1e-9);
    assertEquals(0, sch.rate(second.index()), 1e-9);
  }

  @Test
  void backfillIsWorkConservingAndPrefersMoreImportantClasses() {
    ClusterState s = new ClusterState(Fabric.uniform(3, 10));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow low = s.addFlow(c, 0, 1, 40, 0);
    Flow high = s.addFlow(c, 2, 1, 10, 0);
    Schedule sch = Schedule.empty(s);
    sch.append(high.index(), 0);
    sch.append(low.index(), 1);
    PortBudget budget = new PortBudget(s.fabric());
    Backfill.fill(s, budget, sch, null, new Allocator(3));
    assertEquals(10, sch.rate(high.index()), 1e-9);
    assertEquals(0, sch.rate(low.index()), 1e-9);
  }
}
