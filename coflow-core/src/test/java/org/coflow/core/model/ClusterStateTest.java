package org.coflow.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClusterStateTest {
  /**
   * Flows added and finished at random while the fabric grows: the counts per pair, per sender and
   * per receiver, and each active flow's pair slot, always match a recount of the active flows.
   */
  @Test
  void pairAndPortCountsFollowTheActiveFlowsAsTheFabricGrows() {
    Random rnd = new Random(5);
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    s.addFlow(c, 0, 0, 1, 0); // keeps the coflow active throughout
    for (int step = 0; step < 3_000; step++) {
      int ports = s.fabric().size();
      if (step % 500 == 499) {
        s.setFabric(Fabric.uniform(ports + 3, 100));
      } else if (rnd.nextInt(5) < 3 || s.flows().size() < 2) {
        s.addFlow(c, rnd.nextInt(ports), rnd.nextInt(ports), 10, 0);
      } else {
        s.finishFlow(s.flows().get(1 + rnd.nextInt(s.flows().size() - 1)), 0);
      }
      ports = s.fabric().size();
      int[][] pair = new int[ports][ports];
      int[] from = new int[ports];
      int[] to = new int[ports];
      for (int i = 0; i < s.flows().size(); i++) {
        int u = s.srcAt(i);
        int d = s.dstAt(i);
        pair[u][d]++;
        from[u]++;
        to[d]++;
        assertEquals(u, s.pairSrc(s.pairAt(i)), "step " + step);
        assertEquals(d, s.pairDst(s.pairAt(i)), "step " + step);
      }
      int pairs = 0;
      for (int u = 0; u < ports; u++) {
        assertEquals(from[u], s.activeFlowsFrom(u));
        assertEquals(to[u], s.activeFlowsTo(u));
        for (int d = 0; d < ports; d++) {
          assertEquals(pair[u][d], s.activeFlows(u, d), "step " + step + ", " + u + "->" + d);
          pairs += pair[u][d] > 0 ? 1 : 0;
        }
      }
      assertEquals(pairs, s.activePairs());
      int counted = 0;
      for (int k = 0; k < s.pairSlots(); k++) {
        if (s.activeFlowsAt(k) > 0) {
          counted++;
          assertEquals(pair[s.pairSrc(k)][s.pairDst(k)], s.activeFlowsAt(k));
        }
      }
      assertEquals(pairs, counted);
    }
  }

  @Test
  void aFlowThatFinishedShortOfItsSizeLeavesNothingToSend() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow a = s.addFlow(c, 0, 1, 10, 0);
    Flow b = s.addFlow(c, 2, 1, 5, 0);
    s.addFlow(c, 0, 3, 7, 0);
    s.addSent(a, 8);
    s.addSent(b, 1);
    s.finishFlow(a, 1); // its size was an estimate: 8 bytes were all it had
    assertEquals(4, c.remainingTo(1)); // b's 4 bytes, without a's 2 never sent
    assertEquals(7, c.remainingFrom(0));
    s.addSent(a, 3); // reported after its end
    s.growFlow(a, 20);
    assertEquals(4, c.remainingTo(1));
    assertEquals(7, c.remainingFrom(0));
    assertEquals(12, c.bytesSent());
  }

  @Test
  void bytesCountedPerReceiverFirstReachTheFlowsWhenSettled() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow a = s.addFlow(c, 0, 1, 10, 0);
    Flow b = s.addFlow(c, 2, 1, 6, 0);
    s.addReceived(c, 1, 9);
    s.addReceived(c, 1, -1); // one byte recorded for time a flow idled
    assertEquals(8, c.bytesSent());
    assertEquals(8, c.receivedAt(1));
    assertEquals(8, c.remainingTo(1));
    assertEquals(0, a.sent()); // the flows' own counts wait for their settlement
    assertEquals(10, c.remainingFrom(0));
    s.settleSent(a.index(), 5);
    s.settleSent(b.index(), 3);
    assertEquals(5, s.sentAt(a.index()));
    assertEquals(5, c.remainingFrom(0));
    assertEquals(3, c.remainingFrom(2));
    assertEquals(8, c.bytesSent()); // counted once, per receiver
    assertFalse(s.finishFlow(b, 1));
    assertEquals(3, b.sent());
  }

  @Test
  void bytesPerReceiverNeedAnActiveCoflowAndKnownSizes() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow sized = s.addFlow(c, 0, 1, 10, 0);
    Flow open = s.addFlow(c, 0, 2, Flow.UNKNOWN, 0);
    IllegalStateException unknown =
        assertThrows(IllegalStateException.class, () -> s.settleSent(open.index(), 1));
    assertTrue(unknown.getMessage().contains("no known size"), unknown.getMessage());
    s.addSent(sized, 10);
    s.addSent(open, 4);
    s.finishFlow(sized, 1);
    s.finishFlow(open, 1);
    IllegalStateException gone =
        assertThrows(IllegalStateException.class, () -> s.addReceived(c, 1, 1));
    assertTrue(gone.getMessage().contains("coflow c is not active"), gone.getMessage());
  }

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
  void theArraysAgreeWithTheFlowsThroughRandomFinishes() {
    java.util.Random random = new java.util.Random(7);
    ClusterState s = new ClusterState(Fabric.uniform(6, 100));
    java.util.List<Flow> all = new java.util.ArrayList<>();
    for (int c = 0; c < 5; c++) {
      Coflow coflow = new Coflow("c" + c, c, 0, 1);
      s.addCoflow(coflow);
      for (int k = 0; k < 12; k++) {
        all.add(s.addFlow(coflow, random.nextInt(6), random.nextInt(6), 10 + k, 0));
      }
    }
    java.util.Map<Flow, Double> sent = new java.util.IdentityHashMap<>();
    while (!s.flows().isEmpty()) {
      // Some bytes through the array path, some through the flow, then one flow finishes.
      int i = random.nextInt(s.flows().size());
      Flow f = s.flows().get(i);
      s.addSentAt(i, 1.5);
      s.addSent(f, 0.25);
      sent.merge(f, 1.75, Double::sum);
      s.finishFlow(s.flows().get(random.nextInt(s.flows().size())), 1);
      for (int j = 0; j < s.flows().size(); j++) {
        Flow g = s.flows().get(j);
        assertEquals(g.src(), s.srcAt(j));
        assertEquals(g.dst(), s.dstAt(j));
        assertEquals(g.size(), s.sizeAt(j));
        assertEquals(sent.getOrDefault(g, 0.0), s.sentAt(j));
        assertEquals(g.remaining(), s.remainingAt(j));
        assertSame(g.coflow(), s.coflowAt(j));
        assertEquals(g.coflow().slot(), s.slotAt(j));
      }
      for (Coflow c : s.coflows()) {
        assertEquals(c.activeFlows().size(), c.activeCount());
        for (int k = 0; k < c.activeCount(); k++) {
          Flow g = c.activeFlows().get(k);
          assertEquals(g.index(), c.activeIndex(k));
          assertEquals(g.src(), c.activeSrc(k));
          assertEquals(g.dst(), c.activeDst(k));
          assertEquals(g.sent(), c.activeSent(k));
          assertEquals(g.remaining(), c.activeRemaining(k));
        }
      }
    }
    // Finished flows keep what they sent.
    for (Flow f : all) {
      assertTrue(f.finished());
      assertEquals(sent.getOrDefault(f, 0.0), f.sent());
    }
    double total = 0;
    for (double v : sent.values()) {
      total += v;
    }
    assertEquals(total, all.stream().mapToDouble(Flow::sent).sum(), 1e-9);
  }

  @Test
  void activeCoflowsHaveDistinctSlotsThatLaterCoflowsReuse() {
    Random random = new Random(11);
    ClusterState s = new ClusterState(Fabric.uniform(5, 100));
    int most = 0;
    for (int n = 0; n < 60; n++) {
      Coflow c = new Coflow("c" + n, n, n, 1);
      s.addCoflow(c);
      for (int k = 0; k < 1 + random.nextInt(4); k++) {
        s.addFlow(c, random.nextInt(5), random.nextInt(5), 10, n);
      }
      most = Math.max(most, s.coflows().size());
      java.util.Set<Integer> taken = new java.util.HashSet<>();
      for (Coflow a : s.coflows()) {
        assertTrue(a.slot() >= 0 && a.slot() < s.slots(), "slot " + a.slot());
        assertTrue(taken.add(a.slot()), "slot " + a.slot() + " given twice");
      }
      for (int j = 0; j < s.flows().size(); j++) {
        assertEquals(s.coflowAt(j).slot(), s.slotAt(j));
      }
      // Finish a few flows at random, which finishes some coflows.
      for (int k = 0; k < 3 && !s.flows().isEmpty(); k++) {
        s.finishFlow(s.flows().get(random.nextInt(s.flows().size())), n);
      }
    }
    assertEquals(most, s.slots(), "finished coflows' slots are taken again");
  }

  @Test
  void aCoflowCountsChangesToItsActiveFlows() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow a = new Coflow("a", 0, 0, 1);
    s.addCoflow(a);
    Flow f0 = s.addFlow(a, 0, 1, 10, 0);
    long afterAdd = a.activeChanges();
    s.addFlow(a, 1, 2, 20, 0);
    assertTrue(a.activeChanges() > afterAdd);
    long beforeSend = a.activeChanges();
    s.addSent(f0, 5);
    assertEquals(beforeSend, a.activeChanges(), "bytes sent are not a change of the active flows");
    int into1 = a.changesTo(1);
    int into2 = a.changesTo(2);
    s.finishFlow(f0, 1);
    assertTrue(a.activeChanges() > beforeSend);
    assertTrue(a.changesTo(1) != into1, "a flow into port 1 finished");
    assertEquals(into2, a.changesTo(2), "nothing into port 2 changed");
    // A finished flow can still grow (a late report), without touching the active arrays.
    s.growFlow(f0, 50);
    assertEquals(50, f0.size());
    assertEquals(5, f0.sent());
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

  @Test
  void eachPortListsExactlyThePositionsOfItsActiveFlowsInOrderAsFlowsComeAndGo() {
    Random random = new Random(7);
    ClusterState s = new ClusterState(Fabric.uniform(9, 100));
    Coflow a = new Coflow("a", 0, 0, 1);
    s.addCoflow(a);
    List<Flow> live = new ArrayList<>();
    int checks = 0;
    for (int step = 0; step < 3000; step++) {
      if (live.size() < 2 || random.nextInt(3) > 0) {
        live.add(s.addFlow(a, random.nextInt(9), random.nextInt(9), 10, step));
      } else {
        Flow f = live.remove(random.nextInt(live.size()));
        s.addSent(f, 10);
        s.finishFlow(f, step);
      }
      for (int port = 0; port < 9; port++) {
        assertListed(a, port, true, step);
        assertListed(a, port, false, step);
        checks++;
      }
    }
    assertEquals(27_000, checks);
    assertEquals(0, new Coflow("b", 1, 0, 1).activePositionsTo(3).length);
    assertEquals(0, new Coflow("b", 1, 0, 1).activePositionsFrom(3).length);
  }

  @Test
  void theLastChangesOfTheActiveFlowsAreRemembered() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow a = new Coflow("a", 0, 0, 1);
    s.addCoflow(a);
    assertFalse(a.changeKnown(1));
    Flow first = s.addFlow(a, 0, 1, 10, 0);
    s.addFlow(a, 2, 3, 10, 0);
    s.addFlow(a, 1, 2, 10, 0);
    assertTrue(a.changeKnown(1) && a.changeKnown(3) && !a.changeKnown(4));
    assertEquals(-1, a.changeGone(3));
    assertEquals(2, a.changeLast(3)); // added at position 2
    assertEquals(1, a.changeSrc(3));
    assertEquals(2, a.changeDst(3));
    s.addSent(first, 10);
    s.finishFlow(first, 1);
    assertEquals(4, a.activeChanges());
    assertEquals(0, a.changeGone(4)); // left position 0...
    assertEquals(2, a.changeLast(4)); // ...which the flow at position 2 took
    assertEquals(0, a.changeSrc(4));
    assertEquals(1, a.changeDst(4));
    assertEquals(1, a.activeSrc(0));
    for (int k = 0; k < 100; k++) {
      s.addFlow(a, k % 4, (k + 1) % 4, 10, 1);
    }
    assertFalse(a.changeKnown(4), "only the last changes are remembered");
    assertTrue(a.changeKnown(a.activeChanges() - 63));
    assertFalse(a.changeKnown(a.activeChanges() - 64));
  }

  /**
   * The port's list (into it, or out of it) holds exactly the positions of its active flows, in
   * increasing order.
   */
  private static void assertListed(Coflow a, int port, boolean into, int step) {
    int n = into ? a.activeFlowsTo(port) : a.activeFlowsFrom(port);
    int[] listed = Arrays.copyOf(into ? a.activePositionsTo(port) : a.activePositionsFrom(port), n);
    int[] expected = new int[n];
    int m = 0;
    for (int k = 0; k < a.activeCount(); k++) {
      if ((into ? a.activeDst(k) : a.activeSrc(k)) == port) {
        expected[m++] = k;
      }
    }
    String where = (into ? "into" : "out of") + " port " + port + " at step " + step;
    assertEquals(n, m, where);
    assertTrue(Arrays.equals(expected, listed), where);
  }
}
