package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

/**
 * One decision of each policy on a cluster worked out by hand, with the policy alone (no
 * simulator): the behaviour each paper defines. The simulator's hand-computed CCTs over time
 * ({@code bench}'s HandComputedCctTest) build on these.
 */
class PolicyDecisionsTest {
  private static final double CAP = 12;

  /**
   * A (12 bytes, 0 -> 1) arrived first; B (2 bytes, 0 -> 1) just after it. Flows 0 (A) and 1 (B).
   */
  private static ClusterState twoOnOnePair() {
    ClusterState s = new ClusterState(Fabric.uniform(2, CAP));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    s.addFlow(a, 0, 1, 12, 0);
    s.addFlow(b, 0, 1, 2, 0);
    return s;
  }

  private static Schedule decide(String policy, ClusterState s) {
    return Policies.create(policy, Config.defaults()).schedule(s, 0);
  }

  @Test
  void everyPolicyKeepsDecidingWhenTheFabricGrowsUnderACoflow() {
    // The live master adds ports as hosts join: a coflow seen on a 2-port fabric gains a flow to
    // port 3 of a 4-port one. Every policy (Creek keeps per-port state per coflow) must schedule
    // it, and give the new flow its share.
    for (String policy : Policies.NAMES) {
      SchedulingPolicy p = Policies.create(policy, Config.defaults());
      ClusterState s = new ClusterState(Fabric.uniform(2, CAP));
      Coflow c = new Coflow("c", 0, 0, 1);
      s.addCoflow(c);
      s.addFlow(c, 0, 1, 100, 0);
      p.schedule(s, 0);
      s.setFabric(Fabric.uniform(4, CAP));
      Flow late = s.addFlow(c, 2, 3, 100, 0.1);
      Schedule sch = p.schedule(s, 0.1);
      assertEquals(CAP, sch.rate(late.index()), 1e-9, policy);
    }
  }

  @Test
  void fairSharingSplitsThePairEvenly() {
    Schedule s = decide("fair", twoOnOnePair());
    assertEquals(CAP / 2, s.rate(0), 1e-9);
    assertEquals(CAP / 2, s.rate(1), 1e-9);
  }

  @Test
  void fairSharingIsWaterFillingNotAPerPortSplit() {
    // A: 0 -> 1. B: 0, 3 and 4 -> 2. Port 2's downlink gives B's flows CAP/3 each; A shares port
    // 0's uplink with one of them and gets the rest, 2 CAP/3 (a per-port split would give CAP/2).
    ClusterState s = new ClusterState(Fabric.uniform(5, CAP));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    s.addFlow(a, 0, 1, 100, 0);
    for (int m : new int[] {0, 3, 4}) {
      s.addFlow(b, m, 2, 100, 0);
    }
    Schedule sch = decide("fair", s);
    assertEquals(2 * CAP / 3, sch.rate(0), 1e-9);
    for (int i = 1; i <= 3; i++) {
      assertEquals(CAP / 3, sch.rate(i), 1e-9);
    }
  }

  @Test
  void smallestBottleneckFirstServesTheSmallCoflow() {
    // Varys SEBF: B's bottleneck (2 bytes) is smaller than A's, so B takes the pair.
    Schedule s = decide("varys", twoOnOnePair());
    assertEquals(CAP, s.rate(1), 1e-9);
    assertEquals(0, s.rate(0), 1e-9);
    // Sincronia orders the same way: B before A.
    Schedule order = decide("sincronia", twoOnOnePair());
    assertTrue(order.priority(1) < order.priority(0), "B first");
  }

  @Test
  void blindPoliciesServeInArrivalOrderWithinAQueue() {
    // Neither coflow has crossed a queue threshold: Aalo, Graviton, Baraat and CODA go FIFO.
    for (String policy : new String[] {"aalo", "graviton", "baraat", "coda"}) {
      Schedule s = decide(policy, twoOnOnePair());
      assertEquals(CAP, s.rate(0), 1e-9, policy + ": A, the first to arrive, takes the pair");
      assertEquals(0, s.rate(1), 1e-9, policy);
    }
  }

  @Test
  void weightedAaloSharesAPortOnlyAmongTheQueuesWithFlowsOnIt() {
    // A (queue 0, nothing sent) sends 1 -> 2; B (queue 1, past the first threshold) sends 0 -> 1.
    // No port carries both queues, so each flow gets its whole ports. Queue 0's weight at ports it
    // does not use (0's uplink, 1's downlink) must not come back as leftover on top of B's share.
    Config config =
        Config.defaults()
            .with(PolicyConfig.AALO_INTER_QUEUE, "weighted")
            .with(PolicyConfig.DCLAS_FIRST, 4L)
            .with(PolicyConfig.DELTA_MS, 0L);
    ClusterState s = new ClusterState(Fabric.uniform(3, CAP));
    Coflow b = new Coflow("b", 0, 0, 1);
    Coflow a = new Coflow("a", 1, 0, 1);
    s.addCoflow(b);
    s.addCoflow(a);
    Flow fb = s.addFlow(b, 0, 1, 100, 0);
    Flow fa = s.addFlow(a, 1, 2, 100, 0);
    s.addSent(fb, 10);
    Schedule sch = Policies.create("aalo", config).schedule(s, 0);
    assertEquals(CAP, sch.rate(fb.index()), 1e-9, "B alone on its ports");
    assertEquals(CAP, sch.rate(fa.index()), 1e-9, "A alone on its ports");
  }
}
