package org.coflow.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PairIndexTest {
  /**
   * Random adds, removals of held pairs (backward shifts in a table of thousands of pairs), lookups
   * of pairs not held and rare clears, on few ports, on more, and on ports far apart, checked
   * against a map: every pair held is found at the slot it got, keeps it until removed, a new pair
   * takes the last slot freed, and pairs not held are not found.
   */
  @Test
  void agreesWithAMapThroughAddsRemovalsAndClears() {
    for (int ports : new int[] {3, 100, 1 << 20}) {
      Random rnd = new Random(ports);
      PairIndex index = new PairIndex();
      Map<Long, Integer> held = new HashMap<>();
      List<Long> keys = new ArrayList<>(); // the held pairs, to remove one at random
      Deque<Integer> freed = new ArrayDeque<>();
      int slots = 0;
      int most = 0;
      for (int step = 0; step < 40_000; step++) {
        int s = rnd.nextInt(ports);
        int d = rnd.nextInt(ports);
        long key = (long) s << 32 | d;
        int op = rnd.nextInt(10_000);
        if (op < 5_600) {
          int slot = index.add(s, d);
          if (held.containsKey(key)) {
            assertEquals(held.get(key), slot);
          } else {
            assertEquals(freed.isEmpty() ? slots++ : freed.pop(), slot);
            held.put(key, slot);
            keys.add(key);
          }
        } else if (op < 9_999 && !keys.isEmpty()) {
          if (op < 5_700) {
            assertEquals(held.getOrDefault(key, -1), index.find(s, d));
            continue;
          }
          int at = rnd.nextInt(keys.size());
          long gone = keys.get(at);
          keys.set(at, keys.get(keys.size() - 1));
          keys.remove(keys.size() - 1);
          int slot = index.find((int) (gone >>> 32), (int) gone);
          assertEquals(held.remove(gone), slot);
          index.remove(slot);
          assertFalse(index.held(slot));
          assertEquals(-1, index.find((int) (gone >>> 32), (int) gone));
          freed.push(slot);
        } else if (op == 9_999) {
          index.clear();
          held.clear();
          keys.clear();
          freed.clear();
          slots = 0;
        }
        assertEquals(held.size(), index.size());
        assertEquals(slots, index.slots());
        most = Math.max(most, held.size());
        if (step % 97 == 0) {
          for (Map.Entry<Long, Integer> e : held.entrySet()) {
            int slot = e.getValue();
            assertTrue(index.held(slot));
            assertEquals(e.getKey(), (long) index.src(slot) << 32 | index.dst(slot));
            assertEquals(slot, index.find(index.src(slot), index.dst(slot)));
          }
        }
      }
      assertTrue(
          most >= Math.min(1_000, ports * ports), ports + " ports: at most " + most + " held");
    }
  }

  @Test
  void refusesNegativePortsAndSlotsItDoesNotHold() {
    PairIndex index = new PairIndex();
    assertThrows(IllegalArgumentException.class, () -> index.add(-1, 2));
    index.add(1, 2);
    assertThrows(IllegalArgumentException.class, () -> index.remove(1));
    assertEquals(-1, index.find(2, 1));
    assertEquals(0, index.find(1, 2));
    index.remove(0);
    assertThrows(IllegalArgumentException.class, () -> index.remove(0));
  }
}
