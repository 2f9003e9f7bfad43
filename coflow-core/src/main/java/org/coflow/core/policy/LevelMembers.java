package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

/**
 * {@link Creek}'s members per priority level in one decision, in arrival order: {@code 2 * coflow
 * index} for a whole coflow, {@code 2 * coflow index + 1} for the flows of a coflow split over
 * levels whose receivers are at this level (plain ints: the per-event loops never touch flow
 * objects). The flows of a split coflow are grouped by level at most once per decision, so that
 * every level costs its own flows, and the grouping is kept from one decision to the next while its
 * active flows and the levels of its receivers stay the same.
 *
 * <p>Not thread-safe: reused from decision to decision.
 */
final class LevelMembers {
  private final int levels;
  private final int[][] byLevel;
  private final int[] size;

  /**
   * By coflow slot, a split coflow's flows grouped by level ({@link #bucket}) and what they were
   * grouped from: the coflow, the count of changes of its active flows then, and the level of each
   * of its receivers (by receiver position; -1 for one without active flows).
   */
  private Coflow[] bucketOf = new Coflow[64];

  private int[][] splitFlows = new int[64][];
  private int[][] splitFrom = new int[64][];
  private long[] bucketChanges = new long[64];
  private int[][] bucketLevels = new int[64][];

  /** The decision under way (numbered) and, by coflow slot, the one its flows were checked in. */
  private int decision;

  private int[] bucketedIn = new int[64];

  /** Bucketings made afresh and kept, for tests. */
  private long rebucketed;

  private long kept;

  LevelMembers(int levels) {
    this.levels = levels;
    this.byLevel = new int[levels][64];
    this.size = new int[levels];
  }

  /**
   * Starts a decision: no members, no coflow checked for its bucketing yet. The groupings of
   * coflows that have finished are let go (their coflows, and with them their flows, are not kept
   * alive by a slot no split coflow took since).
   */
  void clear() {
    Arrays.fill(size, 0);
    decision++;
    for (int slot = 0; slot < bucketOf.length; slot++) {
      if (bucketOf[slot] != null && bucketOf[slot].index() < 0) {
        bucketOf[slot] = null;
      }
    }
  }

  /** Adds a member to a level: see the class comment for its encoding. */
  void add(int level, int member) {
    int n = size[level];
    if (n == byLevel[level].length) {
      byLevel[level] = Arrays.copyOf(byLevel[level], 2 * n);
    }
    byLevel[level][n] = member;
    size[level] = n + 1;
  }

  /** How many members level k has. */
  int size(int k) {
    return size[k];
  }

  /** Level k's members, in {@code [0, size(k))}. */
  int[] members(int k) {
    return byLevel[k];
  }

  /**
   * The positions of split coflow c's flows at level k: {@code [from(c, k), from(c, k + 1))} in
   * {@link #split}, after its {@link #bucketOnce} in this decision.
   */
  int from(Coflow c, int k) {
    return splitFrom[c.slot()][k];
  }

  /**
   * The positions of split coflow c's active flows grouped by level ({@link #from}), after its
   * {@link #bucketOnce} in this decision.
   */
  int[] split(Coflow c) {
    return splitFlows[c.slot()];
  }

  /**
   * {@link #bucket} of a coflow split over levels, checked once per decision: the grouping is made
   * afresh only if its slot's grouping was made for another coflow, if the coflow's active flows
   * changed since it was made, or if the level of one of its receivers with active flows did (a
   * grouping is a function of the active flows, in their order, and of those levels). {@code
   * levelOf[slot * ports + receiver]} is the level of each of its receivers.
   */
  void bucketOnce(Coflow c, int[] levelOf, int ports) {
    int slot = c.slot();
    if (slot >= bucketOf.length) {
      int len = Math.max(slot + 1, 2 * bucketOf.length);
      bucketOf = Arrays.copyOf(bucketOf, len);
      splitFlows = Arrays.copyOf(splitFlows, len);
      splitFrom = Arrays.copyOf(splitFrom, len);
      bucketChanges = Arrays.copyOf(bucketChanges, len);
      bucketLevels = Arrays.copyOf(bucketLevels, len);
      bucketedIn = Arrays.copyOf(bucketedIn, len);
    }
    if (bucketedIn[slot] == decision) {
      return;
    }
    bucketedIn[slot] = decision;
    if (sameBucketing(c, slot, levelOf, ports)) {
      kept++;
      return;
    }
    bucket(c, slot, levelOf, ports);
    rebucketed++;
  }

  /**
   * Whether slot's grouping was made from c's active flows as they are and its receivers' levels.
   */
  private boolean sameBucketing(Coflow c, int slot, int[] levelOf, int ports) {
    if (bucketOf[slot] != c || bucketChanges[slot] != c.activeChanges()) {
      return false;
    }
    int[] seen = bucketLevels[slot];
    int base = slot * ports;
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int r = c.receiver(rs);
      if (c.activeFlowsTo(r) > 0 && seen[rs] != levelOf[base + r]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Groups the active flows of a coflow split over levels by level, each level's in the coflow's
   * active order (the order a pass over all its flows per level would offer them in): {@code
   * split(c)[from(c, k) .. from(c, k + 1))} are the positions of its flows at level k.
   */
  private void bucket(Coflow c, int slot, int[] levelOf, int ports) {
    int n = c.activeCount();
    int base = slot * ports;
    int re = c.receiverCount();
    int[] flows = splitFlows[slot];
    if (flows == null || flows.length < n) {
      flows = new int[Math.max(n, flows == null ? 16 : 2 * flows.length)];
      splitFlows[slot] = flows;
    }
    int[] seen = bucketLevels[slot];
    if (seen == null || seen.length < re) {
      seen = new int[Math.max(re, 8)];
      bucketLevels[slot] = seen;
    }
    int[] fill = splitFrom[slot];
    if (fill == null) {
      fill = new int[levels + 1];
      splitFrom[slot] = fill;
    }
    Arrays.fill(fill, 0);
    for (int rs = 0; rs < re; rs++) {
      int r = c.receiver(rs);
      if (c.activeFlowsTo(r) > 0) {
        seen[rs] = levelOf[base + r];
        fill[seen[rs] + 1] += c.activeFlowsTo(r);
      } else {
        seen[rs] = -1;
      }
    }
    for (int k = 0; k < levels; k++) {
      fill[k + 1] += fill[k];
    }
    // fill[k] is where level k's flows start; each is advanced as its flows are placed, so that
    // after the pass fill[k] is where level k + 1's start: moved up one place at the end.
    for (int i = 0; i < n; i++) {
      flows[fill[levelOf[base + c.activeDst(i)]]++] = i;
    }
    System.arraycopy(fill, 0, fill, 1, levels);
    fill[0] = 0;
    bucketOf[slot] = c;
    bucketChanges[slot] = c.activeChanges();
  }

  /** Whether a grouping of {@code c} is kept (tests). */
  boolean holds(Coflow c) {
    return c.slot() >= 0 && c.slot() < bucketOf.length && bucketOf[c.slot()] == c;
  }

  /** How many bucketings were made afresh, and how many kept from an earlier decision (tests). */
  long[] bucketings() {
    return new long[] {rebucketed, kept};
  }
}
