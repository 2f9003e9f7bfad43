package org.coflow.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PairIndexTest {
  /**
   * Random adds, removals and clears on few ports (long probe runs, many backward shifts) and on
   * ports far apart (the table grows), checked after every step against a map: every pair held is
   * found at the slot it got, keeps it until removed, a new pair takes the last slot freed, and
   * pairs not held are not found.
   */
  @Test
  void agreesWithAMapThroughAddsRemovalsAndClears() {
    for (int ports : new int[] {3, 40, 1 << 20}) {
      Random rnd = new Random(ports);
      PairIndex index = new PairIndex();
      Map<Long, Integer> held = new HashMap<>();
      Deque<Integer> freed = new ArrayDeque<>();
      int slots = 0;
      for (int step = 0; step < 20_000; step++) {
        int s = rnd.nextInt(ports);
        int d = rnd.nextInt(ports);
        long key = (long) s << 32 | d;
        int op = rnd.nextInt(100);
        if (op < 55) {
          int slot = index.add(s, d);
          if (held.containsKey(key)) {
            assertEquals(held.get(key), slot);
          } else {
            assertEquals(freed.isEmpty() ? slots++ : freed.pop(), slot);
            held.put(key, slot);
          }
        } else if (op < 99) {
          int slot = index.find(s, d);
          if (!held.containsKey(key)) {
            assertEquals(-1, slot);
            continue;
          }
          assertEquals(held.get(key), slot);
          index.remove(slot);
          assertFalse(index.held(slot));
          held.remove(key);
          freed.push(slot);
        } else {
          index.clear();
          held.clear();
          freed.clear();
          slots = 0;
        }
        assertEquals(held.size(), index.size());
        assertEquals(slots, index.slots());
        if (step % 97 == 0) {
          for (Map.Entry<Long, Integer> e : held.entrySet()) {
            int slot = e.getValue();
            assertTrue(index.held(slot));
            assertEquals(e.getKey(), (long) index.src(slot) << 32 | index.dst(slot));
            assertEquals(slot, index.find(index.src(slot), index.dst(slot)));
          }
        }
      }
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
