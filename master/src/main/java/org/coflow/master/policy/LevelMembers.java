package org.coflow.master.policy;

import java.util.Arrays;
import org.coflow.api.model.Coflow;

/**
 * {@link Creek}'s members per priority level in one decision, in arrival order: {@code 2 * coflow
 * index} for a whole coflow, {@code 2 * coflow index + 1} for the flows of a coflow split over
 * levels whose receivers are at this level (plain ints: the per-event loops never touch flow
 * objects). The flows of a split coflow are bucketed by level once per decision, so that every
 * level costs its own flows.
 *
 * <p>Not thread-safe: reused from decision to decision.
 */
final class LevelMembers {
  private final int levels;
  private final int[][] byLevel;
  private final int[] size;

  /** Flows of the coflows split over levels, grouped by level: see {@link #bucket}. */
  private int[] splitFlows = new int[1024];

  private int[] splitFrom = new int[64];

  /** The decision under way (numbered) and, by coflow index, the one its flows were bucketed in. */
  private int decision;

  private int[] bucketedIn = new int[64];
  private int bucketed;

  LevelMembers(int levels) {
    this.levels = levels;
    this.byLevel = new int[levels][64];
    this.size = new int[levels];
  }

  /** Starts a decision over {@code coflows} coflows: no members, nothing bucketed. */
  void clear(int coflows) {
    Arrays.fill(size, 0);
    int stride = levels + 1;
    if (splitFrom.length < coflows * stride) {
      splitFrom = new int[Math.max(coflows * stride, 2 * splitFrom.length)];
    }
    if (bucketedIn.length < coflows) {
      bucketedIn = new int[Math.max(coflows, 2 * bucketedIn.length)];
    }
    decision++;
    bucketed = 0;
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

  /** The positions of split coflow c's flows at level k: {@code [from(c, k), from(c, k + 1))}. */
  int from(Coflow c, int k) {
    return splitFrom[c.index() * (levels + 1) + k];
  }

  /** The position of a split coflow's active flow at bucket entry {@code b}. */
  int splitFlow(int b) {
    return splitFlows[b];
  }

  /**
   * {@link #bucket} of a coflow split over levels, once per decision; {@code levelOf[slot * ports +
   * receiver]} is the level of each of its receivers.
   */
  void bucketOnce(Coflow c, int[] levelOf, int ports) {
    if (bucketedIn[c.index()] != decision) {
      bucketedIn[c.index()] = decision;
      bucketed = bucket(c, c.index() * (levels + 1), bucketed, levelOf, ports);
    }
  }

  /**
   * Lists the active flows of a coflow split over levels by level, each level's in the coflow's
   * active order (the order a pass over all its flows per level would offer them in): {@code
   * splitFlows[splitFrom[at + k] .. splitFrom[at + k + 1])} are the positions of its flows at level
   * k. Appends from {@code next}; returns the new end.
   */
  private int bucket(Coflow c, int at, int next, int[] levelOf, int ports) {
    int n = c.activeCount();
    int base = c.slot() * ports;
    if (splitFlows.length < next + n) {
      splitFlows = Arrays.copyOf(splitFlows, Math.max(next + n, 2 * splitFlows.length));
    }
    int[] fill = new int[levels + 1];
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int r = c.receiver(rs);
      if (c.activeFlowsTo(r) > 0) {
        fill[levelOf[base + r] + 1] += c.activeFlowsTo(r);
      }
    }
    fill[0] = next;
    for (int k = 0; k < levels; k++) {
      fill[k + 1] += fill[k];
      splitFrom[at + k] = fill[k];
    }
    splitFrom[at + levels] = fill[levels];
    for (int i = 0; i < n; i++) {
      splitFlows[fill[levelOf[base + c.activeDst(i)]]++] = i;
    }
    return next + n;
  }
}
