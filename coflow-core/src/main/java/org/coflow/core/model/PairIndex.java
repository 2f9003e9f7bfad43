package org.coflow.core.model;

import java.util.Arrays;

/**
 * The (sender, receiver) port pairs in use, each at a slot it keeps while it is held, found by an
 * open-addressing hash table (linear probing, at most half full). Memory follows the most pairs
 * held at once (nothing shrinks), never the square of the fabric: a per-pair value lives in the
 * caller's arrays at the pair's slot. Slots run from 0 to {@link #slots()}; a removed pair's slot
 * goes to the next pair added, so without removals the slots are {@code 0 .. size() - 1} in the
 * order the pairs came. Ports are any non-negative ints: the slots stay valid when the fabric
 * grows.
 *
 * <p>Not thread-safe.
 */
public final class PairIndex {
  /** Per cell: the slot + 1 of the pair stored there, 0 if empty. */
  private int[] table = new int[16];

  private int shift = 64 - 4;

  /** Per slot: the pair's ends, -1 for a free slot. */
  private int[] src = new int[8];

  private int[] dst = new int[8];

  /** Per held slot: the cell of the table holding it. */
  private int[] cell = new int[8];

  /** Free slots below {@link #slots}, the last freed on top. */
  private int[] free = new int[8];

  private int freeCount;
  private int slots;
  private int size;

  /** Number of pairs held. */
  public int size() {
    return size;
  }

  /** One past the highest slot in use since the last {@link #clear()}. */
  public int slots() {
    return slots;
  }

  /** Whether {@code slot} holds a pair. */
  public boolean held(int slot) {
    return slot >= 0 && slot < slots && src[slot] >= 0;
  }

  /** The sender port of the pair at {@code slot}. */
  public int src(int slot) {
    return src[slot];
  }

  /** The receiver port of the pair at {@code slot}. */
  public int dst(int slot) {
    return dst[slot];
  }

  /** The slot of pair ({@code s}, {@code d}), or -1 if it is not held. */
  public int find(int s, int d) {
    int mask = table.length - 1;
    for (int c = home(s, d); ; c = (c + 1) & mask) {
      int v = table[c];
      if (v == 0) {
        return -1;
      }
      if (src[v - 1] == s && dst[v - 1] == d) {
        return v - 1;
      }
    }
  }

  /**
   * The slot of pair ({@code s}, {@code d}), added if it was not held (then {@link #size()} grew by
   * one and the slot is the last one freed, or {@link #slots()} - 1).
   */
  public int add(int s, int d) {
    int mask = table.length - 1;
    int c = home(s, d);
    for (int v = table[c]; v != 0; c = (c + 1) & mask, v = table[c]) {
      if (src[v - 1] == s && dst[v - 1] == d) {
        return v - 1;
      }
    }
    if (s < 0 || d < 0) {
      throw new IllegalArgumentException("ports are 0 or more, got (" + s + ", " + d + ")");
    }
    int slot;
    if (freeCount > 0) {
      slot = free[--freeCount];
    } else {
      if (slots == src.length) {
        src = Arrays.copyOf(src, 2 * slots);
        dst = Arrays.copyOf(dst, 2 * slots);
        cell = Arrays.copyOf(cell, 2 * slots);
      }
      slot = slots++;
    }
    src[slot] = s;
    dst[slot] = d;
    size++;
    if (2 * size > table.length) {
      rehash(2 * table.length);
    } else {
      table[c] = slot + 1;
      cell[slot] = c;
    }
    return slot;
  }

  /** Removes the pair at {@code slot}; no other pair changes slot. */
  public void remove(int slot) {
    if (!held(slot)) {
      throw new IllegalArgumentException("slot " + slot + " holds no pair");
    }
    // Backward-shift deletion: the entries after the freed cell that may live there move back,
    // so that every probe sequence stays unbroken without tombstones.
    int mask = table.length - 1;
    int gap = cell[slot];
    table[gap] = 0;
    for (int c = (gap + 1) & mask, v = table[c]; v != 0; c = (c + 1) & mask, v = table[c]) {
      int h = home(src[v - 1], dst[v - 1]);
      if (((c - h) & mask) >= ((c - gap) & mask)) {
        table[gap] = v;
        cell[v - 1] = gap;
        table[c] = 0;
        gap = c;
      }
    }
    src[slot] = -1;
    dst[slot] = -1;
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, 2 * freeCount);
    }
    free[freeCount++] = slot;
    size--;
  }

  /** Removes every pair, at the cost of the slots in use (the table keeps its size). */
  public void clear() {
    for (int k = 0; k < slots; k++) {
      if (src[k] >= 0) {
        table[cell[k]] = 0;
      }
    }
    slots = 0;
    freeCount = 0;
    size = 0;
  }

  private int home(int s, int d) {
    long key = ((long) s << 32) | (d & 0xffffffffL);
    return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
  }

  private void rehash(int cells) {
    table = new int[cells];
    shift = 64 - Integer.numberOfTrailingZeros(cells);
    int mask = cells - 1;
    for (int k = 0; k < slots; k++) {
      if (src[k] < 0) {
        continue;
      }
      int c = home(src[k], dst[k]);
      while (table[c] != 0) {
        c = (c + 1) & mask;
      }
      table[c] = k + 1;
      cell[k] = c;
    }
  }
}
