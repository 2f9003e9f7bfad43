package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.junit.jupiter.api.Test;

/**
 * The grouping by level of a split coflow's flows, kept from one decision to the next, against the
 * grouping made afresh by a pass over its flows per level: the same positions in the same order at
 * every decision of a random run where flows arrive and finish, receivers change level, and coflows
 * finish and leave their slots to new ones.
 */
class LevelMembersTest {
  private static final int PORTS = 7;
  private static final int LEVELS = 4;

  @Test
  void aKeptGroupingIsTheGroupingMadeAfresh() {
    for (long seed = 1; seed <= 40; seed++) {
      run(seed);
    }
  }

  /**
   * A coflow that takes the slot of one that finished, with as many changes of its active flows and
   * its receivers at the levels the other's were at, is grouped afresh.
   */
  @Test
  void aCoflowInTheSlotOfOneThatFinishedIsGroupedAfresh() {
    ClusterState state = new ClusterState(Fabric.uniform(PORTS, 1000));
    LevelMembers members = new LevelMembers(LEVELS);
    int[] levelOf = new int[4 * PORTS];
    Coflow a = new Coflow("a", 0, 0, 1);
    state.addCoflow(a);
    int slot = a.slot();
    levelOf[slot * PORTS + 1] = 0;
    levelOf[slot * PORTS + 4] = 1;
    levelOf[slot * PORTS + 5] = 0;
    levelOf[slot * PORTS + 6] = 1;
    state.addFlow(a, 0, 1, 100, 0);
    state.addFlow(a, 0, 4, 100, 0);
    state.addFlow(a, 2, 1, 100, 0);
    members.clear();
    members.bucketOnce(a, levelOf, PORTS);
    long groupedAt = a.activeChanges();
    assertArrayEquals(new int[] {0, 2}, Arrays.copyOfRange(members.split(a), 0, 2));
    for (Flow f : new ArrayList<>(a.activeFlows())) {
      state.addSent(f, f.remaining());
      state.finishFlow(f, 1);
    }
    assertTrue(members.holds(a));
    members.clear();
    assertFalse(members.holds(a), "a finished: its grouping is let go at the next decision");
    Coflow b = new Coflow("b", 1, 1, 1);
    state.addCoflow(b);
    assertEquals(slot, b.slot(), "b takes a's slot");
    state.addFlow(b, 0, 5, 100, 1);
    state.addFlow(b, 0, 6, 100, 1);
    state.addFlow(b, 2, 6, 100, 1);
    assertEquals(groupedAt, b.activeChanges(), "b has had as many changes as a when grouped");
    members.clear();
    members.bucketOnce(b, levelOf, PORTS);
    for (int k = 0; k < LEVELS; k++) {
      assertArrayEquals(
          afresh(b, k, levelOf),
          Arrays.copyOfRange(members.split(b), members.from(b, k), members.from(b, k + 1)),
          "level " + k);
    }
  }

  private static void run(long seed) {
    Random rnd = new Random(seed);
    ClusterState state = new ClusterState(Fabric.uniform(PORTS, 1000));
    LevelMembers members = new LevelMembers(LEVELS);
    List<Coflow> live = new ArrayList<>();
    int[] levelOf = new int[0];
    long seq = 0;
    for (int decision = 0; decision < 400; decision++) {
      // The run's changes between two decisions: each kind now and then, not at every decision,
      // so that some coflows are unchanged for a while.
      if (live.size() < 2 || rnd.nextInt(8) == 0) {
        Coflow c = new Coflow("c" + seq, seq, decision, 1);
        seq++;
        state.addCoflow(c);
        live.add(c);
        for (int f = 1 + rnd.nextInt(12); f > 0; f--) {
          state.addFlow(c, rnd.nextInt(PORTS), rnd.nextInt(PORTS), 100, decision);
        }
      }
      if (rnd.nextInt(6) == 0) {
        Coflow c = live.get(rnd.nextInt(live.size()));
        state.addFlow(c, rnd.nextInt(PORTS), rnd.nextInt(PORTS), 100, decision);
      }
      if (rnd.nextInt(4) == 0) {
        Coflow c = live.get(rnd.nextInt(live.size()));
        List<Flow> active = c.activeFlows();
        Flow f = active.get(rnd.nextInt(active.size()));
        state.addSent(f, f.remaining());
        if (state.finishFlow(f, decision)) {
          live.remove(c);
        }
      }
      if (levelOf.length < state.slots() * PORTS) {
        levelOf = Arrays.copyOf(levelOf, 2 * state.slots() * PORTS);
      }
      if (decision == 0 || rnd.nextInt(5) == 0) {
        levelOf[rnd.nextInt(state.slots() * PORTS)] = rnd.nextInt(LEVELS);
      }
      members.clear();
      for (Coflow c : live) {
        if (rnd.nextInt(10) == 0) {
          continue; // not split at this decision: not grouped
        }
        members.bucketOnce(c, levelOf, PORTS);
        members.bucketOnce(c, levelOf, PORTS); // a second call in a decision changes nothing
        int[] split = members.split(c);
        for (int k = 0; k < LEVELS; k++) {
          int[] got = Arrays.copyOfRange(split, members.from(c, k), members.from(c, k + 1));
          assertArrayEquals(
              afresh(c, k, levelOf),
              got,
              "seed " + seed + ", decision " + decision + ", " + c.id() + ", level " + k);
        }
        assertEquals(0, members.from(c, 0));
        assertEquals(c.activeCount(), members.from(c, LEVELS));
      }
    }
    long[] made = members.bucketings();
    assertTrue(made[0] > 50, "seed " + seed + ": groupings made afresh: " + made[0]);
    assertTrue(made[1] > 50, "seed " + seed + ": groupings kept: " + made[1]);
  }

  /** The positions of c's active flows whose receiver is at level k, in active order. */
  private static int[] afresh(Coflow c, int k, int[] levelOf) {
    return java.util.stream.IntStream.range(0, c.activeCount())
        .filter(i -> levelOf[c.slot() * PORTS + c.activeDst(i)] == k)
        .toArray();
  }
}
