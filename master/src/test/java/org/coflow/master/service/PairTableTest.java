package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PairTableTest {
  /**
   * Rounds of flows on random host pairs, among the 16,384 hosts the master allows, diffed against
   * a map of what was pushed: a pair is pushed when it is new or its summed rate or best priority
   * changed, and a pushed pair is removed, once, in the first round without flows on it.
   */
  @Test
  void pushesWhatChangedAndRemovesPairsThatLostTheirFlows() {
    Random rnd = new Random(7);
    PairTable table = new PairTable();
    Map<Long, double[]> pushed = new HashMap<>();
    PairTable.RateChange exact = (before, now) -> before != now;
    int pushes = 0;
    int removals = 0;
    for (int round = 0; round < 300; round++) {
      table.reset();
      Map<Long, double[]> sums = new HashMap<>();
      for (int f = 0, n = rnd.nextInt(60); f < n; f++) {
        // Few senders and receivers, so pairs come back round after round.
        int src = rnd.nextInt(4) * 4096;
        int dst = 16383 - rnd.nextInt(5);
        double rate = rnd.nextInt(3);
        int priority = rnd.nextInt(3);
        table.add(src, dst, rate, priority);
        double[] sum =
            sums.computeIfAbsent(key(src, dst), k -> new double[] {0, Integer.MAX_VALUE});
        sum[0] += rate;
        sum[1] = Math.min(sum[1], priority);
      }
      assertEquals(sums.size(), table.touched());
      for (int k = 0; k < table.touched(); k++) {
        long key = key(table.src(k), table.dst(k));
        double[] sum = sums.get(key);
        assertEquals(sum[0], table.rate(k));
        assertEquals((int) sum[1], table.priority(k));
        double[] was = pushed.get(key);
        boolean differs = was == null || was[0] != sum[0] || was[1] != sum[1];
        assertEquals(differs, table.differs(k, exact), "round " + round + ", pair " + key);
        if (differs) {
          table.markPushed(k);
          pushed.put(key, sum.clone());
          pushes++;
          assertFalse(table.differs(k, exact), "pushed just now");
        }
      }
      Set<Long> gone = new HashSet<>(pushed.keySet());
      gone.removeAll(sums.keySet());
      Set<Long> removed = new HashSet<>();
      table.retainTouched((src, dst) -> assertEquals(true, removed.add(key(src, dst))));
      assertEquals(gone, removed, "round " + round);
      pushed.keySet().removeAll(gone);
      removals += removed.size();
    }
    assertEquals(
        true, pushes > 300 && removals > 100, pushes + " pushes, " + removals + " removals");
  }

  private static long key(int src, int dst) {
    return (long) src << 32 | dst;
  }
}
