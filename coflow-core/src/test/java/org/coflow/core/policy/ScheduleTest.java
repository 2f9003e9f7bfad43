package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

class ScheduleTest {
  @Test
  void servedFlowsInIndexOrderWhateverOrderTheirRatesWereSetIn() {
    // Rates set in index order (the list is the order), mostly in index order after a few set
    // out of it (a short head sorted and merged), and at random (the bitmap); each schedule built
    // on the arrays of the one before, as the simulator recycles them (every fourth round serves
    // few flows, so that rates are cleared both one by one and in a sweep).
    ClusterState s = new ClusterState(Fabric.uniform(4, 10));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    int n = 1000;
    for (int i = 0; i < n; i++) {
      s.addFlow(c, i % 4, (i / 4) % 4, 5, 0);
    }
    Random random = new Random(7);
    Schedule spare = null;
    for (int round = 0; round < 30; round++) {
      Schedule sch = Schedule.recycle(s, spare);
      List<Integer> set = new ArrayList<>();
      int head = round % 3 == 1 ? 1 + random.nextInt(40) : 0;
      for (int k = 0; k < head; k++) {
        set.add(random.nextInt(n));
      }
      for (int i = 0; i < n; i++) {
        boolean pick =
            round % 4 == 3
                ? random.nextInt(10) == 0
                : random.nextInt(3) > 0 && (round % 3 != 2 || random.nextBoolean());
        if (pick) {
          set.add(i);
        }
      }
      if (round % 3 == 2) {
        java.util.Collections.shuffle(set, random);
      }
      long changes = sch.rateChanges();
      for (int f : set) {
        sch.addRate(f, 1);
      }
      assertEquals(changes + set.size(), sch.rateChanges());
      int[] expected = set.stream().mapToInt(Integer::intValue).distinct().sorted().toArray();
      assertEquals(expected.length, sch.servedSize());
      int[] order = Arrays.copyOf(sch.servedInOrder(), sch.servedSize());
      assertEquals(Arrays.toString(expected), Arrays.toString(order), "round " + round);
      spare = sch;
    }
  }

  @Test
  void ratesAddedAtOnceAreTheRatesAddedOneByOne() {
    // Two schedules given the same rates, one flow at a time and in batches: some flows twice,
    // some rates zero, batches in and out of index order, on recycled arrays.
    ClusterState s = new ClusterState(Fabric.uniform(5, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    int n = 600;
    for (int i = 0; i < n; i++) {
      s.addFlow(i % 3 == 0 ? b : a, i % 5, (i / 5) % 5, 5, 0);
    }
    Random random = new Random(5);
    Schedule spareOne = null;
    Schedule spareBatch = null;
    for (int round = 0; round < 20; round++) {
      Schedule one = Schedule.recycle(s, spareOne);
      Schedule batch = Schedule.recycle(s, spareBatch);
      for (int part = 0; part < 4; part++) {
        int m = random.nextInt(300);
        int[] flows = new int[m];
        double[] rates = new double[m];
        int at = random.nextInt(n);
        for (int k = 0; k < m; k++) {
          at = round % 2 == 0 ? (at + 1 + random.nextInt(3)) % n : random.nextInt(n);
          flows[k] = at;
          rates[k] = random.nextInt(6) == 0 ? 0 : random.nextDouble();
          one.addRate(flows[k], rates[k]);
        }
        batch.addRates(flows, rates, m);
        assertEquals(one.rateChanges(), batch.rateChanges());
        assertEquals(one.servedSize(), batch.servedSize());
      }
      for (int i = 0; i < n; i++) {
        assertEquals(one.rate(i), batch.rate(i));
      }
      int size = one.servedSize();
      assertEquals(
          Arrays.toString(Arrays.copyOf(one.served(), size)),
          Arrays.toString(Arrays.copyOf(batch.served(), size)));
      assertEquals(
          Arrays.toString(Arrays.copyOf(one.servedInOrder(), size)),
          Arrays.toString(Arrays.copyOf(batch.servedInOrder(), size)),
          "round " + round);
      assertEquals(Arrays.toString(one.coflowRates(s)), Arrays.toString(batch.coflowRates(s)));
      // A batch after the sums were taken changes them, as one rate does.
      batch.addRates(new int[] {0}, new double[] {1}, 1);
      one.addRate(0, 1);
      assertEquals(Arrays.toString(one.coflowRates(s)), Arrays.toString(batch.coflowRates(s)));
      spareOne = one;
      spareBatch = batch;
    }
  }

  @Test
  void aCoflowSplitByReceiverEntersTheOrderOncePerClass() {
    // Coflow A whole in class 0; coflow B's flows into port 2 in class 1, into port 3 in class 0,
    // appended after A; a single flow of C in class 1.
    ClusterState s = new ClusterState(Fabric.uniform(4, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    Coflow c = new Coflow("c", 2, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    s.addCoflow(c);
    Flow a0 = s.addFlow(a, 0, 1, 5, 0);
    Flow b0 = s.addFlow(b, 0, 2, 5, 0);
    Flow b1 = s.addFlow(b, 1, 3, 5, 0);
    Flow b2 = s.addFlow(b, 0, 3, 5, 0);
    Flow c0 = s.addFlow(c, 1, 2, 5, 0);
    Schedule order = Schedule.empty(s);
    order.classByReceiver(b, new int[] {9, 9, 1, 0});
    order.appendCoflow(a, 0);
    order.appendReceivers(b, 0);
    order.appendReceivers(b, 1);
    order.append(c0.index(), 1);
    assertEquals(s.flows().size(), order.orderSize());
    List<Integer> listed = new ArrayList<>();
    order.forEachInOrder(listed::add);
    assertEquals(List.of(a0.index(), b1.index(), b2.index(), b0.index(), c0.index()), listed);
    assertEquals(0, order.priority(a0.index()));
    assertEquals(1, order.priority(b0.index()));
    assertEquals(0, order.priority(b1.index()));
    assertEquals(0, order.priority(b2.index()));
    assertEquals(1, order.priority(c0.index()));
    // Backfill hands capacity out by these classes: class 0 (A, B into 3) fills port 0's uplink and
    // port 3's downlink at 5 each; B's flow into 2 waits in class 1 (in class 0 it would have
    // taken a third of port 0), and C's gets what port 1 has left.
    PortBudget budget = new PortBudget(s.fabric());
    Backfill.fill(s, budget, order, null, new Allocator(4));
    assertEquals(5, order.rate(a0.index()), 1e-9);
    assertEquals(5, order.rate(b1.index()), 1e-9);
    assertEquals(5, order.rate(b2.index()), 1e-9);
    assertEquals(0, order.rate(b0.index()), 1e-9);
    assertEquals(5, order.rate(c0.index()), 1e-9);
    assertThrows(IllegalStateException.class, () -> order.appendReceivers(c, 0));
  }

  @Test
  void anOrderCopiedSegmentBySegmentIsTheOrderAppendedFlowByFlow() {
    // Every kind of segment (a whole coflow, a coflow's flows into the receivers of a class, flows
    // by position, a single flow), copied into another schedule: the same flows in the same order
    // with the same classes as appending each flow, and orderInto lists them with their classes.
    ClusterState s = new ClusterState(Fabric.uniform(4, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    Coflow c = new Coflow("c", 2, 0, 1);
    Coflow d = new Coflow("d", 3, 0, 1);
    for (Coflow x : List.of(a, b, c, d)) {
      s.addCoflow(x);
    }
    s.addFlow(a, 0, 1, 5, 0);
    s.addFlow(a, 1, 0, 5, 0);
    s.addFlow(b, 0, 2, 5, 0);
    s.addFlow(b, 1, 3, 5, 0);
    s.addFlow(b, 0, 3, 5, 0);
    s.addFlow(c, 0, 1, 5, 0);
    s.addFlow(c, 1, 2, 5, 0);
    s.addFlow(c, 2, 3, 5, 0);
    Flow d0 = s.addFlow(d, 3, 0, 5, 0);
    Schedule source = Schedule.empty(s);
    source.classByReceiver(b, new int[] {7, 7, 3, 1});
    source.appendReceivers(b, 1);
    source.appendCoflow(a, 2);
    source.appendPositions(c, new int[] {2, 0, 1}, 0, 2, 2);
    source.appendReceivers(b, 3);
    source.append(d0.index(), 4);
    source.appendPositions(c, new int[] {2, 0, 1}, 2, 3, 5);
    Schedule copy = Schedule.empty(s);
    copy.appendOrderOf(source);
    Schedule single = Schedule.empty(s);
    List<Integer> listed = new ArrayList<>();
    source.forEachInOrder(listed::add);
    for (int i : listed) {
      single.append(i, source.priority(i));
    }
    assertEquals(s.flows().size(), copy.orderSize());
    List<Integer> copied = new ArrayList<>();
    copy.forEachInOrder(copied::add);
    assertEquals(listed, copied);
    int[] flows = new int[s.flows().size()];
    int[] classes = new int[flows.length];
    assertEquals(flows.length, copy.orderInto(flows, classes));
    for (int k = 0; k < flows.length; k++) {
      assertEquals((int) listed.get(k), flows[k]);
      assertEquals(single.priority(flows[k]), classes[k], "class of flow " + flows[k]);
      assertEquals(single.priority(flows[k]), copy.priority(flows[k]), "class of flow " + flows[k]);
    }
    assertEquals(List.of(1, 2, 3, 4, 5), Arrays.stream(classes).boxed().distinct().toList());
  }

  @Test
  void wholeCoflowSegmentsAreListedOnlyWhenEverySegmentIsAWholeCoflow() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    s.addFlow(a, 0, 1, 5, 0);
    Flow b0 = s.addFlow(b, 1, 2, 5, 0);
    Flow b1 = s.addFlow(b, 2, 3, 5, 0);
    Coflow[] coflows = new Coflow[2];
    int[] classes = new int[2];
    Schedule whole = Schedule.empty(s);
    whole.appendCoflow(b, 0);
    whole.appendCoflow(a, 3);
    assertEquals(2, whole.wholeCoflowSegments(coflows, classes));
    assertEquals(List.of(b, a), List.of(coflows));
    assertEquals(List.of(0, 3), Arrays.stream(classes).boxed().toList());
    assertEquals(-1, whole.wholeCoflowSegments(new Coflow[1], new int[1]), "arrays too short");
    Schedule single = Schedule.empty(s);
    single.appendCoflow(a, 0);
    single.append(b0.index(), 1);
    assertEquals(-1, single.wholeCoflowSegments(coflows, classes));
    Schedule byReceiver = Schedule.empty(s);
    byReceiver.appendCoflow(a, 0);
    byReceiver.classByReceiver(b, new int[] {1, 1, 1, 2});
    byReceiver.appendReceivers(b, 1);
    byReceiver.appendReceivers(b, 2);
    assertEquals(-1, byReceiver.wholeCoflowSegments(new Coflow[3], new int[3]));
    Schedule byPosition = Schedule.empty(s);
    byPosition.appendCoflow(a, 0);
    byPosition.appendPositions(b, new int[] {1, 0}, 0, 2, 1);
    assertEquals(-1, byPosition.wholeCoflowSegments(coflows, classes));
    // A flow's position in its coflow follows the coflow's active list as flows finish.
    assertEquals(1, b1.position());
    s.finishFlow(b0, 1);
    assertEquals(-1, b0.position());
    assertEquals(0, b1.position());
    assertEquals(b1.index(), b.activeIndex(b1.position()));
  }

  @Test
  void flowsAppendedByPositionAreTheFlowsAppendedOneByOne() {
    // Coflow A's flows in two classes by position (CODA's flow queues), as runs of positions and
    // one by one: the same order, classes and backfill rates; and a recycled schedule whose
    // classes were asked keeps none of them.
    ClusterState s = new ClusterState(Fabric.uniform(4, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    Flow a0 = s.addFlow(a, 0, 1, 5, 0);
    Flow a1 = s.addFlow(a, 1, 2, 5, 0);
    Flow a2 = s.addFlow(a, 0, 2, 5, 0);
    Flow a3 = s.addFlow(a, 2, 3, 5, 0);
    Flow b0 = s.addFlow(b, 2, 3, 5, 0);
    int[] byClass = {2, 0, 3, 1};
    Schedule runs = Schedule.empty(s);
    Schedule single = Schedule.empty(s);
    runs.appendPositions(a, byClass, 0, 2, 0);
    runs.appendPositions(a, byClass, 2, 2, 1);
    runs.appendCoflow(b, 1);
    runs.appendPositions(a, byClass, 2, 4, 2);
    for (int p = 0; p < 4; p++) {
      single.append(a.activeIndex(byClass[p]), p < 2 ? 0 : 2);
      if (p == 1) {
        single.appendCoflow(b, 1);
      }
    }
    assertEquals(s.flows().size(), runs.orderSize());
    List<Integer> listed = new ArrayList<>();
    runs.forEachInOrder(listed::add);
    assertEquals(List.of(a2.index(), a0.index(), b0.index(), a3.index(), a1.index()), listed);
    for (Flow f : s.flows()) {
      assertEquals(single.priority(f.index()), runs.priority(f.index()), f.toString());
    }
    assertEquals(0, runs.priority(a2.index()));
    assertEquals(2, runs.priority(a1.index()));
    Backfill.fill(s, new PortBudget(s.fabric()), runs, null, new Allocator(4));
    Backfill.fill(s, new PortBudget(s.fabric()), single, null, new Allocator(4));
    for (Flow f : s.flows()) {
      assertEquals(single.rate(f.index()), runs.rate(f.index()), 0.0, f.toString());
    }
    // B's class comes between A's two: B takes port 2's uplink before A's flow from port 2.
    assertEquals(5, runs.rate(a2.index()), 1e-9);
    assertEquals(10, runs.rate(b0.index()), 1e-9);
    assertEquals(0, runs.rate(a3.index()), 1e-9);
    // Rates per coflow, asked again after a rate changed.
    double aRate = runs.rate(a0.index()) + runs.rate(a1.index()) + runs.rate(a2.index());
    assertEquals(aRate, runs.coflowRates(s)[a.index()], 1e-9);
    assertEquals(10, runs.coflowRates(s)[b.index()], 1e-9);
    runs.addRate(a3.index(), 2);
    assertEquals(aRate + 2, runs.coflowRates(s)[a.index()], 1e-9);
    s.finishFlow(a0, 1);
    Schedule next = Schedule.recycle(s, runs);
    for (Flow f : s.flows()) {
      assertThrows(IllegalStateException.class, () -> next.priority(f.index()));
    }
  }

  @Test
  void aRecycledScheduleStartsEmptyAfterAFlowFinished() {
    ClusterState s = new ClusterState(Fabric.uniform(3, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    s.addCoflow(a);
    Flow f0 = s.addFlow(a, 0, 1, 5, 0);
    Flow f1 = s.addFlow(a, 1, 2, 5, 0);
    Flow f2 = s.addFlow(a, 2, 0, 5, 0);
    Schedule first = Schedule.empty(s);
    first.append(f0.index(), 2);
    first.append(f1.index(), 0);
    first.append(f2.index(), 1);
    first.setRate(f0.index(), 4);
    first.setRate(f2.index(), 6);
    s.finishFlow(f0, 1);
    // The state renumbered its flows; the next decision reuses the first's arrays.
    Schedule next = Schedule.recycle(s, first);
    assertEquals(2, next.size());
    assertEquals(0, next.servedSize());
    assertEquals(0, next.orderSize());
    for (Flow f : s.flows()) {
      assertEquals(0, next.rate(f.index()));
      assertThrows(IllegalStateException.class, () -> next.priority(f.index()));
    }
    next.appendCoflow(a, 3);
    next.setRate(f2.index(), 7);
    assertEquals(7, next.rate(f2.index()));
    assertEquals(3, next.priority(f1.index()));
    assertEquals(3, next.priority(f2.index()));
    assertEquals(1, next.servedSize());
    assertEquals(0, first.servedSize());
  }

  @Test
  void aRecycledScheduleListsOnlyItsOwnServedFlowsInOrder() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    s.addCoflow(a);
    for (int k = 0; k < 40; k++) {
      s.addFlow(a, k % 4, (k + 1) % 4, 5, 0);
    }
    Schedule first = Schedule.empty(s);
    first.setRate(2, 1);
    first.setRate(1, 1);
    assertEquals(1, first.servedInOrder()[0]);
    assertEquals(2, first.servedInOrder()[1]);
    // Fewer served flows than the array the first decision sorted into: its stale entries (1, 2,
    // smaller than 20) must not be sorted in.
    Schedule next = Schedule.recycle(s, first);
    next.setRate(20, 1);
    assertEquals(1, next.servedSize());
    assertEquals(20, next.servedInOrder()[0]);
    Schedule third = Schedule.recycle(s, next);
    third.setRate(7, 1);
    third.setRate(3, 1);
    third.setRate(39, 1);
    int[] order = third.servedInOrder();
    assertEquals(List.of(3, 7, 39), List.of(order[0], order[1], order[2]));
  }
}
