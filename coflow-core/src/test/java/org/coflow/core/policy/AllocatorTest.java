package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
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
  void waterFillingOfFlowsAndOfPairsIsTextbookWaterFillingBitForBit() {
    // The allocator's group filling, and its filling of (pair, number of flows) listed in another
    // order, against a plain flow-by-flow water-filling on random groups where many coflows share
    // pairs, some ports start saturated and some flows already have a rate (as in a backfill): the
    // same rates and residuals to the last bit.
    java.util.Random random = new java.util.Random(5);
    long pairFills = 0;
    for (int round = 0; round < 200; round++) {
      int ports = 2 + random.nextInt(9);
      ClusterState s = new ClusterState(Fabric.uniform(ports, 1000));
      int coflows = 1 + random.nextInt(6);
      for (int c = 0; c < coflows; c++) {
        Coflow coflow = new Coflow("c" + c, c, 0, 1);
        s.addCoflow(coflow);
        for (int k = 0, n = 1 + random.nextInt(30); k < n; k++) {
          s.addFlow(coflow, random.nextInt(ports), random.nextInt(ports), 100, 0);
        }
      }
      double[] start = new double[2 * ports];
      for (int r = 0; r < start.length; r++) {
        start[r] = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(999) + random.nextDouble();
      }
      double[] given = new double[s.flows().size()];
      for (int i = 0; i < given.length; i++) {
        given[i] = random.nextInt(4) == 0 ? random.nextDouble() * 50 : 0;
      }
      Schedule byPair = Schedule.empty(s);
      Schedule byFlow = Schedule.empty(s);
      PortBudget pairBudget = budgetAt(s, start);
      PortBudget flowBudget = budgetAt(s, start);
      Allocator allocator = new Allocator(ports);
      allocator.clearGroup();
      java.util.List<Integer> group = new java.util.ArrayList<>();
      for (int i = 0; i < given.length; i++) {
        byPair.addRate(i, given[i]);
        byFlow.addRate(i, given[i]);
        if (random.nextInt(5) > 0) {
          allocator.offer(i, s.srcAt(i), s.dstAt(i), pairBudget);
          if (flowBudget.available(s.srcAt(i), s.dstAt(i)) > PortBudget.EPS) {
            group.add(i);
          }
        }
      }
      // The same group as (pair, number of flows), in another order: fillPairs.
      PortBudget pairsBudget = budgetAt(s, start);
      int[] src = new int[ports * ports];
      int[] dst = new int[ports * ports];
      int[] count = new int[ports * ports];
      for (int i : group) {
        int key = (ports * ports - 1) - (s.srcAt(i) * ports + s.dstAt(i));
        src[key] = s.srcAt(i);
        dst[key] = s.dstAt(i);
        count[key]++;
      }
      double[] pairRate = new double[ports * ports];
      allocator.fillGroupByPair(pairBudget, byPair);
      pairFills += allocator.group().pairFills();
      allocator.fillPairs(src, dst, count, ports * ports, pairsBudget, pairRate);
      flowByFlow(s, group, flowBudget, byFlow);
      for (int i = 0; i < given.length; i++) {
        assertEquals(byFlow.rate(i), byPair.rate(i), 0, "round " + round + ", flow " + i);
      }
      for (int i : group) {
        int key = (ports * ports - 1) - (s.srcAt(i) * ports + s.dstAt(i));
        assertEquals(
            byFlow.rate(i), given[i] + pairRate[key], 0, "round " + round + ", pair of " + i);
      }
      for (int p = 0; p < ports; p++) {
        assertEquals(flowBudget.up(p), pairBudget.up(p), 0, "round " + round + ", uplink " + p);
        assertEquals(flowBudget.down(p), pairBudget.down(p), 0, "round " + round + ", down " + p);
        assertEquals(flowBudget.up(p), pairsBudget.up(p), 0, "round " + round + ", up " + p);
        assertEquals(flowBudget.down(p), pairsBudget.down(p), 0, "round " + round + ", dn " + p);
      }
    }
    // Large groups on shared pairs are filled by gathering their members by pair; small ones, or
    // ones with mostly distinct pairs, member by member: both ways were checked above.
    assertTrue(pairFills > 20 && pairFills < 180, pairFills + " of 200 groups filled by pair");
  }

  /**
   * Textbook water-filling, flow by flow: every unfrozen flow rises by the smallest fair share of a
   * resource; flows of a saturated resource freeze at the level reached.
   */
  private static void flowByFlow(
      ClusterState s, java.util.List<Integer> group, PortBudget budget, Schedule schedule) {
    int ports = budget.ports();
    int n = group.size();
    int[] res = new int[2 * n];
    int[] count = new int[2 * ports];
    java.util.List<Integer> touched = new java.util.ArrayList<>();
    for (int k = 0; k < n; k++) {
      res[2 * k] = s.srcAt(group.get(k));
      res[2 * k + 1] = ports + s.dstAt(group.get(k));
      for (int r : new int[] {res[2 * k], res[2 * k + 1]}) {
        if (!touched.contains(r)) {
          touched.add(r);
        }
        count[r]++;
      }
    }
    boolean[] frozen = new boolean[n];
    double[] residual = budget.residual;
    double level = 0;
    while (true) {
      double step = Double.POSITIVE_INFINITY;
      int argmin = -1;
      for (int r : touched) {
        if (count[r] > 0 && Math.max(0, residual[r]) / count[r] < step) {
          step = Math.max(0, residual[r]) / count[r];
          argmin = r;
        }
      }
      if (argmin < 0) {
        return;
      }
      level += step;
      for (int r : touched) {
        if (count[r] > 0) {
          residual[r] -= step * count[r];
        }
      }
      residual[argmin] = 0;
      for (int r : touched) {
        if (count[r] > 0 && residual[r] <= PortBudget.EPS) {
          residual[r] = Math.max(0, residual[r]);
          for (int k = 0; k < n; k++) {
            if (!frozen[k] && (res[2 * k] == r || res[2 * k + 1] == r)) {
              frozen[k] = true;
              schedule.addRate(group.get(k), level);
              count[res[2 * k]]--;
              count[res[2 * k + 1]]--;
            }
          }
        }
      }
    }
  }

  @Test
  void aReplayedCoflowStepIsTheStepComputedAgain() {
    // Greedy or max-min steps of every coflow (one kind per round).
    long replays =
        replaysAgainstFresh(
            11,
            (s, allocator, budget, schedule, greedy) -> {
              for (Coflow c : s.coflows()) {
                if (greedy) {
                  allocator.greedy(c, budget, schedule);
                } else {
                  allocator.maxMinFair(c, budget, schedule);
                }
              }
            });
    assertTrue(replays > 10, "replays: " + replays);
  }

  @Test
  void aReplayedBackfillIsTheBackfillComputedAgain() {
    // The backfill of classes of one whole coflow each, on top of a rate the coflow's first flow
    // already has from the policy's own step.
    long replays =
        replaysAgainstFresh(
            13,
            (s, allocator, budget, schedule, unused) -> {
              int cls = 0;
              for (Coflow c : s.coflows()) {
                schedule.appendCoflow(c, cls++);
                double rate = Math.min(50, budget.available(c.activeSrc(0), c.activeDst(0)));
                schedule.addRate(c.activeIndex(0), rate);
                budget.take(c.activeSrc(0), c.activeDst(0), rate);
              }
              Backfill.fill(s, budget, schedule, null, allocator);
            });
    assertTrue(replays > 10, "replays: " + replays);
  }

  @Test
  void aReplayedStepOfGroupsIsTheStepComputedAgain() {
    // Each coflow's flows split into groups filled one after the other (CODA's flow queues), by
    // one of two rules (the round's flag), so that rounds meet the same flows and residuals with
    // other groups: a replay that ignored the groups would give the other rule's rates.
    long replays =
        replaysAgainstFresh(
            17,
            (s, allocator, budget, schedule, bySum) -> {
              for (Coflow c : s.coflows()) {
                stepOfGroups(c, bySum, allocator, budget, schedule);
              }
            });
    assertTrue(replays > 10, "replays: " + replays);
  }

  /**
   * {@link Allocator#maxMinByGroups} of the coflow's flows in 3 groups, by the sum of their ports
   * if {@code bySum}, else by receiver parity.
   */
  private static void stepOfGroups(
      Coflow c, boolean bySum, Allocator allocator, PortBudget budget, Schedule schedule) {
    int n = c.activeCount();
    int groups = 3;
    int[] groupOf = new int[n];
    int[] from = new int[groups + 1];
    for (int k = 0; k < n; k++) {
      int src = c.activeSrc(k);
      int dst = c.activeDst(k);
      groupOf[k] = bySum ? (src + dst) % groups : dst % 2;
      from[groupOf[k] + 1]++;
    }
    for (int j = 0; j < groups; j++) {
      from[j + 1] += from[j];
    }
    int[] byGroup = new int[n];
    int[] next = java.util.Arrays.copyOf(from, groups);
    for (int k = 0; k < n; k++) {
      byGroup[next[groupOf[k]]++] = k;
    }
    allocator.maxMinByGroups(c, groupOf, byGroup, from, groups, budget, schedule);
  }

  @Test
  void aStepOfGroupsRedoneGroupByGroupIsAFullStep() {
    // CODA's queues inside a coflow: the same coflow's step of groups again and again on nudged
    // residuals (now and then a port saturated), its flows grouped by one of two rules (switched
    // now and then) and sometimes one finishing: each step gives the rates and leaves the
    // residuals of a fresh allocator's, while groups are replayed or redone from their last rise.
    java.util.Random random = new java.util.Random(23);
    long steps = 0;
    long redone = 0;
    for (int round = 0; round < 200; round++) {
      int ports = 2 + random.nextInt(8);
      java.util.List<Flow> flows = new java.util.ArrayList<>();
      ClusterState s =
          oneCoflow(random, ports, 2 + random.nextInt(round % 2 == 0 ? 200 : 30), flows);
      Coflow c = s.coflows().get(0);
      double[] start = new double[2 * ports];
      for (int r = 0; r < start.length; r++) {
        start[r] = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(999);
      }
      Allocator kept = new Allocator(ports);
      boolean bySum = random.nextBoolean();
      for (int step = 0; step < 8; step++) {
        bySum ^= random.nextInt(8) == 0;
        if (random.nextInt(6) == 0 && flows.size() > 1) {
          Flow f = flows.remove(random.nextInt(flows.size()));
          s.addSent(f, 100);
          s.finishFlow(f, 2);
        }
        int r = random.nextInt(start.length);
        start[r] = random.nextInt(10) == 0 ? 0 : start[r] * (0.5 + random.nextDouble());
        PortBudget keptBudget = budgetAt(s, start);
        PortBudget freshBudget = budgetAt(s, start);
        Schedule byKept = Schedule.empty(s);
        Schedule byFresh = Schedule.empty(s);
        stepOfGroups(c, bySum, kept, keptBudget, byKept);
        stepOfGroups(c, bySum, new Allocator(ports), freshBudget, byFresh);
        steps++;
        String where = "round " + round + ", step " + step;
        assertSameStep(s, byFresh, freshBudget, byKept, keptBudget, where);
      }
      redone += kept.refill().refills();
    }
    assertTrue(redone > steps / 4, redone + " groups redone from their last rise in " + steps);
  }

  /** One side of {@link #replaysAgainstFresh}: the steps of a round on a budget and schedule. */
  private interface Steps {
    void run(
        ClusterState s, Allocator allocator, PortBudget budget, Schedule schedule, boolean flag);
  }

  /**
   * A long-lived allocator (which replays steps whose inputs it has seen) against a fresh one per
   * round, over rounds that revisit the same budgets and lose flows: bit-identical rates, served
   * order and residuals. Returns how many steps the long-lived one replayed.
   */
  private static long replaysAgainstFresh(long seed, Steps steps) {
    java.util.Random random = new java.util.Random(seed);
    int ports = 8;
    ClusterState s = sixCoflows(random, ports);
    double[][] starts = threeBudgets(random, ports);
    Allocator memo = new Allocator(ports);
    for (int round = 0; round < 60 && !s.flows().isEmpty(); round++) {
      double[] start = starts[random.nextInt(starts.length)];
      boolean flag = random.nextBoolean();
      PortBudget kept = budgetAt(s, start);
      PortBudget fresh = budgetAt(s, start);
      Schedule withMemo = Schedule.empty(s);
      Schedule computed = Schedule.empty(s);
      steps.run(s, memo, kept, withMemo, flag);
      steps.run(s, new Allocator(ports), fresh, computed, flag);
      for (int i = 0; i < s.flows().size(); i++) {
        assertEquals(computed.rate(i), withMemo.rate(i), 0.0, "round " + round + " flow " + i);
      }
      assertEquals(computed.servedSize(), withMemo.servedSize(), "round " + round);
      for (int k = 0; k < computed.servedSize(); k++) {
        assertEquals(computed.served()[k], withMemo.served()[k], "round " + round);
      }
      for (int r = 0; r < ports; r++) {
        assertEquals(fresh.up(r), kept.up(r), 0.0);
        assertEquals(fresh.down(r), kept.down(r), 0.0);
      }
      if (round % 5 == 4) {
        s.finishFlow(s.flows().get(random.nextInt(s.flows().size())), round);
      }
    }
    return memo.replays();
  }

  /** Six coflows of 15 random flows each on {@code ports} ports of 1000 bytes/s. */
  private static ClusterState sixCoflows(java.util.Random random, int ports) {
    ClusterState s = new ClusterState(Fabric.uniform(ports, 1000));
    for (int c = 0; c < 6; c++) {
      Coflow coflow = new Coflow("c" + c, c, 0, 1);
      s.addCoflow(coflow);
      for (int k = 0; k < 15; k++) {
        s.addFlow(coflow, random.nextInt(ports), random.nextInt(ports), 100, 0);
      }
    }
    return s;
  }

  /** Three sets of residuals a round picks from, so that rounds revisit the same inputs. */
  private static double[][] threeBudgets(java.util.Random random, int ports) {
    double[][] starts = new double[3][2 * ports];
    for (double[] start : starts) {
      for (int r = 0; r < start.length; r++) {
        start[r] = random.nextInt(4) == 0 ? 0 : 100 + random.nextInt(900);
      }
    }
    return starts;
  }

  @Test
  void aCoflowStepThroughItsReceiversListsIsTheStepOverAllItsFlows() {
    // Greedy and max-min steps of one coflow whose flows mostly wait at saturated receivers (found
    // through the receivers' lists) against the same steps over the list of all its flows, after
    // finishes have reshuffled its positions: the same rates and residuals to the last bit.
    java.util.Random random = new java.util.Random(11);
    long marked = 0;
    for (int round = 0; round < 300; round++) {
      Allocator steps = stepAgainstList(random, round, true, random.nextBoolean());
      marked += steps.marks().markedSteps();
    }
    assertTrue(marked > 100 && marked < 300, marked + " of 300 steps through receivers' lists");
  }

  @Test
  void aGreedyStepOverMostlyFreeReceiversIsTheStepOverAllItsFlows() {
    // The greedy step of a coflow whose receivers mostly have capacity marks all its flows but
    // those of saturated ports, and unmarks a port's later flows when it saturates: the same
    // rates and residuals as the step over the list of all its flows.
    java.util.Random random = new java.util.Random(12);
    long allMarked = 0;
    for (int round = 0; round < 300; round++) {
      allMarked += stepAgainstList(random, round, false, true).marks().allMarkedSteps();
    }
    assertTrue(allMarked > 200, allMarked + " of 300 greedy steps marked all flows");
  }

  @Test
  void aGreedyStepRedoneFromTheLastOneIsAFullStep() {
    // The same coflow's greedy step again and again on other residuals (ports saturated or freed,
    // capacities nudged), with flows added and finished between steps (now and then more than
    // the coflow's log of changes remembers): each step, when redone from the last one's outcome,
    // gives the rates and leaves the residuals of a full step by an allocator that never saw the
    // coflow.
    java.util.Random random = new java.util.Random(13);
    long redone = 0;
    long steps = 0;
    for (int round = 0; round < 200; round++) {
      int ports = 3 + random.nextInt(12);
      java.util.List<Flow> flows = new java.util.ArrayList<>();
      ClusterState s = oneCoflow(random, ports, 2 + random.nextInt(150), flows);
      Coflow c = s.coflows().get(0);
      for (int k = 0, gone = random.nextInt(flows.size() / 2); k < gone; k++) {
        Flow f = flows.remove(random.nextInt(flows.size()));
        s.addSent(f, 100);
        s.finishFlow(f, 1);
      }
      Allocator kept = new Allocator(ports);
      double[] start = new double[2 * ports];
      for (int r = 0; r < start.length; r++) {
        start[r] = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(999);
      }
      for (int step = 0; step < 8; step++) {
        int churn = random.nextInt(10) == 0 ? 70 : random.nextInt(3) == 0 ? random.nextInt(4) : 0;
        for (int k = 0; k < churn; k++) {
          if (flows.size() > 1 && random.nextBoolean()) {
            Flow f = flows.remove(random.nextInt(flows.size()));
            s.addSent(f, 100);
            s.finishFlow(f, 2);
          } else {
            flows.add(s.addFlow(c, random.nextInt(ports), random.nextInt(ports), 100, 2));
          }
        }
        // Change a few ports: saturate, free, or nudge them.
        for (int changes = random.nextInt(3); changes >= 0; changes--) {
          int r = random.nextInt(start.length);
          int how = random.nextInt(3);
          start[r] = how == 0 ? 0 : how == 1 ? 1 + random.nextInt(999) : start[r] * 0.999;
        }
        PortBudget keptBudget = budgetAt(s, start);
        PortBudget freshBudget = budgetAt(s, start);
        Schedule byKept = Schedule.empty(s);
        Schedule byFresh = Schedule.empty(s);
        long before = kept.greedySteps().reratings();
        kept.greedy(c, keptBudget, byKept);
        redone += kept.greedySteps().reratings() - before;
        steps++;
        new Allocator(ports).greedy(c, freshBudget, byFresh);
        String where = "round " + round + ", step " + step;
        assertSameStep(s, byFresh, freshBudget, byKept, keptBudget, where);
      }
    }
    assertTrue(redone > steps / 2, redone + " of " + steps + " steps redone from the last one");
  }

  @Test
  void aWaterFillingRedoneFromItsLastRiseIsAFullStep() {
    // The same coflow's max-min step and backfill again and again on other residuals (mostly
    // nudged, so that the same ports have capacity and the last rise may still hold; now and then
    // saturated or freed), with flows added and finished between some steps: each step, whether
    // redone from the last rise or not, gives the rates and leaves the residuals of a full step by
    // an allocator that never saw the coflow.
    java.util.Random random = new java.util.Random(17);
    long steps = 0;
    long redone = 0;
    long reordered = 0;
    long ofReordered = 0;
    long afterFinishes = 0;
    for (int round = 0; round < 300; round++) {
      int ports = 2 + random.nextInt(10);
      java.util.List<Flow> flows = new java.util.ArrayList<>();
      // Every fourth round, resources tie (every port has the same residual, never changed) and
      // the coflow's flows finish from about twice the ports to fewer, across the size where the
      // rise lists resources by port rather than as flows come.
      boolean ties = round % 4 == 1;
      int n = ties ? 2 * ports + random.nextInt(6) : 2 + random.nextInt(round % 3 == 0 ? 400 : 40);
      ClusterState s = oneCoflow(random, ports, n, flows);
      Coflow c = s.coflows().get(0);
      Allocator kept = new Allocator(ports);
      double[] start = new double[2 * ports];
      for (int r = 0; r < start.length; r++) {
        start[r] = ties ? 400.0 / 7 : random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(999);
      }
      int[] givenBack = random.ints(1 + random.nextInt(3), 0, start.length).toArray();
      for (int step = 0; step < 8; step++) {
        int churn = ties ? 1 : random.nextInt(4);
        if (churn == 0) {
          flows.add(s.addFlow(c, random.nextInt(ports), random.nextInt(ports), 100, 2));
        } else if (churn == 1) {
          // One to five flows finish, the last active one now and then (the log's two cases).
          for (int k = 1 + random.nextInt(5); k > 0 && flows.size() > 1; k--) {
            Flow f =
                flows.remove(
                    random.nextBoolean() ? flows.size() - 1 : random.nextInt(flows.size()));
            s.addSent(f, 100);
            s.finishFlow(f, 2);
          }
        }
        for (int changes = ties ? -1 : random.nextInt(3); changes >= 0; changes--) {
          int r = random.nextInt(start.length);
          int how = random.nextInt(10);
          start[r] =
              how == 0
                  ? 0
                  : how == 1
                      ? 1 + random.nextInt(999)
                      : how == 2 ? Math.floor(start[r]) : start[r] * (0.5 + random.nextDouble());
        }
        PortBudget keptBudget = budgetAt(s, start);
        PortBudget freshBudget = budgetAt(s, start);
        Schedule byKept = Schedule.empty(s);
        Schedule byFresh = Schedule.empty(s);
        Allocator fresh = new Allocator(ports);
        kept.maxMinFair(c, keptBudget, byKept);
        fresh.maxMinFair(c, freshBudget, byFresh);
        // A backfill on what is left once capacity is given back at the round's ports.
        for (int r : givenBack) {
          double more = 1 + random.nextInt(200);
          keptBudget.residual[r] += more;
          freshBudget.residual[r] += more;
        }
        kept.backfillCoflow(c, keptBudget, byKept);
        fresh.backfillCoflow(c, freshBudget, byFresh);
        steps += 2;
        String where = "round " + round + ", step " + step;
        assertSameStep(s, byFresh, freshBudget, byKept, keptBudget, where);
      }
      redone += kept.refill().refills();
      reordered += kept.refill().reorderedRefills();
      ofReordered += kept.refill().refillsOfReordered();
      afterFinishes += kept.refill().refillsAfterFinishes();
    }
    assertTrue(redone > steps / 8, redone + " of " + steps + " steps redone from the last rise");
    assertTrue(
        afterFinishes > steps / 40,
        afterFinishes + " of " + steps + " steps redone from the last rise after flows finished");
    assertTrue(
        reordered > steps / 50,
        reordered + " of " + steps + " steps redone from the last rise saturated in another order");
    assertTrue(
        ofReordered > steps / 100,
        ofReordered + " of " + steps + " steps redone from saturations a reordered redo noted");
  }

  @Test
  void aRedoAfterFlowsFinishedTiesResourcesAsAFullStepWould() {
    // Senders 3 and 1 tie (three flows each on equal residuals that three flows do not divide
    // exactly): the one the rise meets first ends at exactly 0, the other a few ulps above. With 8
    // flows on 4 ports a full step lists resources by port (sender 1 first); once the last flow
    // has finished, 7 flows are listed in the order they come (sender 3 first). A redo from the
    // rise of 8 flows would keep the port order: the allocator must compute this step in full.
    ClusterState s = new ClusterState(Fabric.uniform(4, 1000));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    int[][] pairs = {{3, 0}, {3, 1}, {3, 2}, {1, 0}, {1, 1}, {1, 3}, {0, 2}, {0, 2}};
    java.util.List<Flow> flows = new java.util.ArrayList<>();
    for (int[] pair : pairs) {
      flows.add(s.addFlow(c, pair[0], pair[1], 100, 0));
    }
    double[] start = new double[8];
    java.util.Arrays.fill(start, 400.0 / 7);
    Allocator kept = new Allocator(4);
    kept.maxMinFair(c, budgetAt(s, start), Schedule.empty(s));
    Flow last = flows.get(flows.size() - 1);
    s.addSent(last, 100);
    s.finishFlow(last, 1);
    PortBudget keptBudget = budgetAt(s, start);
    PortBudget freshBudget = budgetAt(s, start);
    kept.maxMinFair(c, keptBudget, Schedule.empty(s));
    new Allocator(4).maxMinFair(c, freshBudget, Schedule.empty(s));
    assertEquals(0, freshBudget.up(3), "sender 3 met first by the full step");
    assertTrue(freshBudget.up(1) > 0, "sender 1 a few ulps above 0: " + freshBudget.up(1));
    for (int p = 0; p < 4; p++) {
      assertEquals(freshBudget.up(p), keptBudget.up(p), 0, "up " + p);
      assertEquals(freshBudget.down(p), keptBudget.down(p), 0, "down " + p);
    }
  }

  /**
   * A state on {@code ports} ports of 1000 with one coflow of {@code n} flows between random ports
   * (added to {@code flows}).
   */
  private static ClusterState oneCoflow(
      java.util.Random random, int ports, int n, java.util.List<Flow> flows) {
    ClusterState s = new ClusterState(Fabric.uniform(ports, 1000));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    for (int k = 0; k < n; k++) {
      flows.add(s.addFlow(c, random.nextInt(ports), random.nextInt(ports), 100, 0));
    }
    return s;
  }

  /** The same rate for every flow of {@code s} and the same residual at every port, to the bit. */
  private static void assertSameStep(
      ClusterState s,
      Schedule expected,
      PortBudget expectedBudget,
      Schedule actual,
      PortBudget actualBudget,
      String where) {
    for (Flow f : s.flows()) {
      assertEquals(expected.rate(f.index()), actual.rate(f.index()), 0, where);
    }
    for (int p = 0; p < expectedBudget.ports(); p++) {
      assertEquals(expectedBudget.up(p), actualBudget.up(p), 0, where + ", up " + p);
      assertEquals(expectedBudget.down(p), actualBudget.down(p), 0, where + ", down " + p);
    }
  }

  /** A budget of the state's fabric with the given residuals (uplinks, then downlinks). */
  private static PortBudget budgetAt(ClusterState s, double[] residuals) {
    PortBudget budget = new PortBudget(s.fabric());
    budget.setResiduals(residuals);
    return budget;
  }

  /**
   * One step of a random coflow (flows reshuffled by finishes, random residuals with receivers
   * {@code mostlySaturated} or mostly free) against the same step over the list of its flows.
   */
  private static Allocator stepAgainstList(
      java.util.Random random, int round, boolean mostlySaturated, boolean greedy) {
    int ports = 3 + random.nextInt(12);
    java.util.List<Flow> flows = new java.util.ArrayList<>();
    ClusterState s =
        oneCoflow(random, ports, 2 + random.nextInt(mostlySaturated ? 120 : 200), flows);
    Coflow c = s.coflows().get(0);
    for (int k = 0, gone = random.nextInt(flows.size() / 2); k < gone; k++) {
      Flow f = flows.remove(random.nextInt(flows.size()));
      s.addSent(f, 100);
      s.finishFlow(f, 1);
    }
    double[] start = new double[2 * ports];
    for (int r = 0; r < start.length; r++) {
      boolean saturated =
          r >= ports && (mostlySaturated ? random.nextInt(5) > 0 : random.nextInt(5) == 0);
      start[r] = saturated || random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(999);
    }
    Allocator steps = new Allocator(ports);
    PortBudget stepBudget = budgetAt(s, start);
    PortBudget listBudget = budgetAt(s, start);
    Schedule byStep = Schedule.empty(s);
    Schedule byList = Schedule.empty(s);
    if (greedy) {
      steps.greedy(c, stepBudget, byStep);
      new Allocator(ports).greedy(c.activeFlows(), listBudget, byList);
    } else {
      steps.maxMinFair(c, stepBudget, byStep);
      new Allocator(ports).maxMinFair(c.activeFlows(), listBudget, byList);
    }
    for (Flow f : s.flows()) {
      assertEquals(byList.rate(f.index()), byStep.rate(f.index()), 0, "round " + round);
    }
    for (int p = 0; p < ports; p++) {
      assertEquals(listBudget.up(p), stepBudget.up(p), 0, "round " + round + ", up " + p);
      assertEquals(listBudget.down(p), stepBudget.down(p), 0, "round " + round + ", dn " + p);
    }
    return steps;
  }

  @Test
  void finishedCoflowsAreForgotten() {
    ClusterState s = new ClusterState(Fabric.uniform(3, 10));
    Coflow a = new Coflow("a", 0, 0, 1);
    Coflow b = new Coflow("b", 1, 0, 1);
    s.addCoflow(a);
    s.addCoflow(b);
    Flow fa = s.addFlow(a, 0, 1, 5, 0);
    s.addFlow(b, 1, 2, 5, 0);
    Allocator allocator = new Allocator(3);
    PortBudget budget = new PortBudget(s.fabric());
    Schedule schedule = Schedule.empty(s);
    allocator.maxMinFair(a, budget, schedule);
    allocator.maxMinFair(b, budget, schedule);
    assertEquals(2, allocator.remembered());
    s.finishFlow(fa, 1);
    allocator.forgetFinished();
    assertEquals(1, allocator.remembered());
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
  void aSaturatedPortACoflowIsDoneWithDoesNotBecomeItsBottleneck() {
    ClusterState s = new ClusterState(Fabric.uniform(4, 100));
    Coflow c = new Coflow("c", 0, 0, 1);
    s.addCoflow(c);
    Flow a = s.addFlow(c, 0, 1, 0.1, 0);
    Flow b = s.addFlow(c, 0, 1, 1.1, 0);
    s.addFlow(c, 2, 3, 5, 0);
    // Ports 0 and 1 sum their sizes and their bytes in different orders, which leaves an ulp over.
    s.addSent(b, 0.1);
    s.addSent(a, 0.1);
    s.addSent(b, 1.1 - 0.1);
    assertTrue(0.0 + 0.1 + 1.1 > 0.0 + 0.1 + 0.1 + (1.1 - 0.1));
    s.finishFlow(a, 1);
    s.finishFlow(b, 1);
    // Nothing is left where every flow of the coflow has finished.
    assertEquals(0, c.remainingFrom(0));
    assertEquals(0, c.remainingTo(1));
    assertEquals(5, c.remainingTo(3));
    double[] capacity = new double[8];
    Arrays.fill(capacity, 100);
    capacity[4 + 1] = 0; // receiver 1 taken by other coflows
    // SEBF's key and MADD's duration: the 5 bytes left to port 3, not an infinite wait on port 1.
    assertEquals(0.05, new Allocator(4).bottleneck(c, capacity), 1e-12);
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
