package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

/**
 * Steps held in a schedule rather than written ({@link Schedule#hold}): every reader of rates sees
 * what writing them would have left, bit for bit; a step is held only when no other rate can reach
 * its flows; and a policy that holds (under {@link SchedulingPolicy#passesOverHeld}) decides
 * exactly what one that does not decides, holding only steps redone from the last decision's, with
 * the flows whose rates changed listed.
 */
class HeldStepsTest {
  /** Three coflows of four flows each on a 4-port fabric: flows 4c .. 4c+3 are coflow c's. */
  private static ClusterState state() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    for (int c = 0; c < 3; c++) {
      Coflow coflow = new Coflow("c" + c, c, 0, 1);
      s.addCoflow(coflow);
      for (int k = 0; k < 4; k++) {
        s.addFlow(coflow, k, (k + c) % 4, 1_000, 0);
      }
    }
    return s;
  }

  private static final int[] ALL = {0, 1, 2, 3};
  private static final double[] RATES = {0.1, 0.2, 0.30000000000000004, 7};

  private static int[] flowsOf(ClusterState s, int c) {
    Coflow coflow = s.coflows().get(c);
    return new int[] {
      coflow.activeIndex(0), coflow.activeIndex(1), coflow.activeIndex(2), coflow.activeIndex(3)
    };
  }

  /** Holds a step of {@code c} as the allocator does: written at once if the schedule refuses. */
  private static void holdOrWrite(Schedule sch, Coflow c, double[] rates, int n) {
    if (!sch.hold(c, ALL, rates, n, null, 0)) {
      int[] flows = new int[n];
      for (int j = 0; j < n; j++) {
        flows[j] = c.activeIndex(ALL[j]);
      }
      sch.addRates(flows, rates, n);
    }
  }

  @Test
  void aHeldStepIsWrittenWhenItsRatesAreReadAndOnlyThen() {
    ClusterState s = state();
    Coflow a = s.coflows().get(0);
    Schedule sch = Schedule.empty(s);
    long changes = sch.rateChanges();
    sch.giving(a);
    holdOrWrite(sch, a, RATES, 4);
    sch.giving(null);
    assertEquals(1, sch.held().size());
    assertEquals(4, sch.held().flows());
    assertEquals(changes + 4, sch.rateChanges(), "held rates count as set");
    assertEquals(0, sch.writtenSize());
    assertEquals(0, sch.writtenRate(flowsOf(s, 0)[3]));
    // Rates said to go to another coflow leave the step held.
    Coflow b = s.coflows().get(1);
    sch.giving(b);
    sch.addRates(flowsOf(s, 1), RATES, 4);
    sch.giving(null);
    assertEquals(1, sch.held().size());
    assertEquals(4, sch.writtenSize());
    // Reading a rate writes it, in the order held.
    assertEquals(7, sch.rate(flowsOf(s, 0)[3]));
    assertEquals(0, sch.held().size());
    assertEquals(8, sch.servedSize());
    assertFalse(sch.raised());
    assertEquals(changes + 8, sch.rateChanges());
  }

  @Test
  void everyReaderSeesWhatWritingWouldHaveLeft() {
    // Random steps over random schedules, each held or written, read in every way, against the
    // same steps written: the same rates, served flows, sums and counts.
    Random random = new Random(11);
    for (int round = 0; round < 300; round++) {
      ClusterState s = state();
      Schedule held = Schedule.empty(s);
      Schedule plain = Schedule.empty(s);
      for (int step = 0, steps = 1 + random.nextInt(6); step < steps; step++) {
        int c = random.nextInt(3);
        Coflow coflow = s.coflows().get(c);
        int n = 1 + random.nextInt(4);
        double[] rates = new double[n];
        for (int j = 0; j < n; j++) {
          rates[j] = 1 + random.nextInt(50) * 0.1;
        }
        int[] flows = Arrays.copyOf(flowsOf(s, c), n);
        int kind = random.nextInt(4);
        if (kind == 0) {
          held.giving(coflow);
          holdOrWrite(held, coflow, rates, n);
        } else if (kind == 1) {
          held.giving(coflow);
          held.addRates(flows, rates, n);
        } else if (kind == 2) {
          held.giving(coflow); // flow by flow, as small steps are handed out
          for (int j = 0; j < n; j++) {
            held.addRate(flows[j], rates[j]);
          }
        } else {
          held.addRate(flows[0], rates[0]); // said of no coflow
          rates = new double[] {rates[0]};
          flows = new int[] {flows[0]};
          n = 1;
        }
        held.giving(null);
        plain.addRates(flows, rates, n);
      }
      assertEquals(plain.rateChanges(), held.rateChanges(), "round " + round);
      int reader = random.nextInt(3);
      if (reader == 0) {
        assertArrayEquals(plain.coflowRates(s), held.coflowRates(s), "round " + round);
      } else if (reader == 1) {
        assertEquals(plain.servedSize(), held.servedSize(), "round " + round);
      }
      // The served flows in the order they were served, as a caller walking them sees them.
      assertArrayEquals(
          Arrays.copyOf(plain.served(), plain.servedSize()),
          Arrays.copyOf(held.served(), held.servedSize()),
          "round " + round);
      for (int i = 0; i < s.flows().size(); i++) {
        assertEquals(plain.rate(i), held.rate(i), "round " + round + " flow " + i);
      }
      assertArrayEquals(
          Arrays.copyOf(plain.servedInOrder(), plain.servedSize()),
          Arrays.copyOf(held.servedInOrder(), held.servedSize()),
          "round " + round);
      assertEquals(plain.raised(), held.raised(), "round " + round);
    }
  }

  @Test
  void aStepIsNotHeldWhereAnotherRateMayReachItsFlows() {
    ClusterState s = state();
    Coflow a = s.coflows().get(0);
    // Its coflow was given rates already: written at once, on top of them.
    Schedule given = Schedule.empty(s);
    given.giving(a);
    given.addRates(flowsOf(s, 0), RATES, 4);
    holdOrWrite(given, a, RATES, 4);
    assertEquals(0, given.held().size());
    assertTrue(given.raised());
    assertEquals(0.30000000000000004 + 0.30000000000000004, given.rate(flowsOf(s, 0)[2]));
    // Rates were given without saying to whom: written at once.
    Schedule anonymous = Schedule.empty(s);
    anonymous.addRate(flowsOf(s, 2)[0], 1);
    anonymous.giving(a);
    holdOrWrite(anonymous, a, RATES, 4);
    assertEquals(0, anonymous.held().size());
    assertEquals(5, anonymous.writtenSize());
    // Rates added to a held coflow's flows write the held step first.
    Schedule after = Schedule.empty(s);
    after.giving(a);
    holdOrWrite(after, a, RATES, 4);
    after.addRates(flowsOf(s, 0), new double[] {1, 1, 1, 1}, 4);
    assertEquals(0, after.held().size());
    assertTrue(after.raised());
    assertEquals(0.1 + 1, after.rate(flowsOf(s, 0)[0]));
    // A schedule recycled drops the held steps of the one it reuses.
    Schedule spare = Schedule.empty(s);
    spare.giving(a);
    holdOrWrite(spare, a, RATES, 4);
    assertEquals(1, spare.held().size());
    Schedule next = Schedule.recycle(s, spare);
    assertEquals(0, next.held().size());
    assertEquals(0, next.servedSize());
    assertEquals(0, next.rate(flowsOf(s, 0)[0]));
  }

  /**
   * A coflow that got nothing in the last decision (its ports taken by an older coflow) and now
   * replays its step of the decision before gets rates its flows did not move at: written, not
   * held.
   */
  @Test
  void aStepReplayedFromAnOlderDecisionIsNotHeld() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 1000));
    Coflow older = new Coflow("older", 0, 0, 1);
    s.addCoflow(older);
    s.addFlow(older, 0, 1, 1e6, 0);
    Coflow newer = new Coflow("newer", 1, 0, 1);
    s.addCoflow(newer);
    s.addFlow(newer, 2, 3, 1e6, 0);
    AbstractPolicy aalo = (AbstractPolicy) Policies.create("aalo", Config.defaults());
    aalo.movesAsDecided();
    aalo.passesOverHeld();
    Schedule first = aalo.schedule(s, 0);
    aalo.recycle(first);
    Flow taking = s.addFlow(older, 2, 3, 1e6, 0.001);
    Schedule blocked = aalo.schedule(s, 0.001);
    assertEquals(0, blocked.rate(newer.activeIndex(0)), "the newer coflow waits");
    aalo.recycle(blocked);
    s.finishFlow(taking, 0.002);
    Schedule again = aalo.schedule(s, 0.002);
    assertEquals(0, again.held().size(), "a step of two decisions ago is not held");
    assertEquals(1000, again.rate(newer.activeIndex(0)));
    aalo.recycle(again);
    Schedule same = aalo.schedule(s, 0.003);
    assertEquals(2, same.held().size(), "both steps of the last decision are held");
  }

  /**
   * Aalo holding (as the lazy loop lets it) against Aalo writing every step, decision after
   * decision on a random fabric where coflows come and flows finish: the same rate for every flow,
   * bit for bit, and steps held once their flows stayed the same, each flow at its rate of the last
   * decision unless listed as changed; none held when the last schedule was changed after its
   * decision or not handed back.
   */
  @Test
  void aPolicyThatHoldsDecidesAsOneThatWrites() {
    Random random = new Random(3);
    int ports = 6;
    ClusterState s = new ClusterState(Fabric.uniform(ports, 1000));
    AbstractPolicy holding = (AbstractPolicy) Policies.create("aalo", Config.defaults());
    AbstractPolicy writing = (AbstractPolicy) Policies.create("aalo", Config.defaults());
    holding.movesAsDecided();
    holding.passesOverHeld();
    writing.movesAsDecided();
    long seq = 0;
    double now = 0;
    long held = 0;
    long partly = 0;
    Map<Flow, Double> last = new IdentityHashMap<>();
    for (int round = 0; round < 200; round++) {
      if (random.nextInt(5) == 0 || s.flows().isEmpty()) {
        Coflow c = new Coflow("c" + seq, seq++, now, 1);
        s.addCoflow(c);
        for (int k = 0, n = 1 + random.nextInt(40); k < n; k++) {
          s.addFlow(c, random.nextInt(ports), random.nextInt(ports), 1e6, now);
        }
      }
      for (int k = random.nextInt(3); k > 0 && !s.flows().isEmpty(); k--) {
        s.finishFlow(s.flows().get(random.nextInt(s.flows().size())), now);
      }
      Schedule h = holding.schedule(s, now);
      Schedule w = writing.schedule(s, now);
      List<Coflow> heldCoflows = new ArrayList<>();
      Map<Integer, Double> changedTo = new HashMap<>();
      for (int k = 0; k < h.held().size(); k++) {
        heldCoflows.add(h.held().coflow(k));
        for (int j = 0; j < h.held().changes(k); j++) {
          changedTo.put(h.held().changedFlow(k, j), h.held().changedRate(k, j));
        }
        partly += h.held().changes(k) > 0 ? 1 : 0;
      }
      for (int i = 0; i < s.flows().size(); i++) {
        assertEquals(w.rate(i), h.rate(i), "round " + round + " flow " + i);
      }
      // What a held step claims: its coflow's flows keep the rates of the last decision, but for
      // the changes it lists, which take it to its new rates.
      for (Coflow c : heldCoflows) {
        for (int k = 0; k < c.activeCount(); k++) {
          Flow f = s.flows().get(c.activeIndex(k));
          double was = last.getOrDefault(f, 0.0);
          Double to = changedTo.get(f.index());
          if (to == null) {
            assertEquals(was, h.rate(f.index()), "round " + round + " held " + f);
          } else {
            assertNotEquals(was, to, "round " + round + " listed as changed " + f);
            assertTrue(was > 0, "round " + round + " changed but not moving " + f);
            assertEquals(to, h.rate(f.index()), "round " + round + " changed " + f);
          }
        }
      }
      held += heldCoflows.size();
      last.clear();
      for (Flow f : s.flows()) {
        last.put(f, h.rate(f.index()));
      }
      if (round == 150) {
        // Asked rates and handed back: then changed after its decision, it lets nothing be held.
        h.addRate(s.flows().size() - 1, 1);
        holding.recycle(h);
        writing.recycle(w);
        now += 0.001;
        long before = holding.allocator().held();
        holding.schedule(s, now);
        assertEquals(before, holding.allocator().held(), "held after a changed schedule");
        continue;
      }
      holding.recycle(h);
      writing.recycle(w);
      now += 0.001;
    }
    assertTrue(held > 100, "steps held: " + held);
    assertTrue(partly >= 5, "steps held with changed rates: " + partly);
    assertTrue(holding.allocator().held() > 1000, "flows held: " + holding.allocator().held());
    assertEquals(0, writing.allocator().held());
  }
}
