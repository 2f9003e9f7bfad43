package org.coflow.core.policy;

import java.util.Arrays;

/**
 * Active flows per priority level counted by (sender, receiver) pair, kept from one decision to the
 * next, and each level's water-filling from those counts: {@link Creek}'s levels, and {@link
 * Baraat}'s first class as one level.
 *
 * <p>{@code count[k][sender * ports + receiver]} is the number of flows of that pair at level k.
 * Each port keeps the pairs counted on it at each level listed by their other end, and its flows
 * there, as the counts move: a level with many flows is then water-filled at the cost of its pairs,
 * not its flows, and with no sorting of the pairs by port at each fill ({@link #fill}).
 *
 * <p>Per level, what its last fill from the counts started from and left is kept too: the version
 * its counts had ({@link #count} moves it on), the budget it found and the budget it left. A level
 * whose counts and budget are those of its last fill would get the same rates (a fill is a function
 * of them), so it keeps them and takes what it took then ({@link #keptFill}). A level whose rates
 * were set flow by flow since ({@link #clearRates}) has other rates and keeps nothing.
 */
final class LevelPairCounts {
  /**
   * The most one policy's counts may take: 32 MiB, Baraat's one level on 774 ports or Creek's eight
   * on 364. They are dense by pair (ports squared per level), so a larger fabric is filled flow by
   * flow instead ({@link #fits}): at the 16,384 hosts the master allows, Creek's eight levels would
   * take over 60 GiB.
   */
  static final long MAX_BYTES = 32L << 20;

  /**
   * Bytes per pair, at most: per level a count, a rate, the pair's place in its sender's list and
   * in its receiver's, and its entries in those lists (no list grows past the fabric's ports, or 8
   * on a fabric of fewer). The bound ({@link #fits}) counts one level more than asked, a margin for
   * the lists' headers and their growth, and keeps the limits at 774 and 364 ports.
   */
  private static final int PAIR_BYTES = 5 * Integer.BYTES + Double.BYTES;

  private final int ports;
  private final int[][] count;

  /**
   * Per level, per port (senders, then {@code ports} + receiver): the other end of each pair with
   * flows there ({@code ports} + receiver for a sender, the sender for a receiver), in {@code
   * ends[k][r][0 .. listed[k][r])}.
   */
  private final int[][][] ends;

  private final int[][] listed;

  /** Per level, by pair key: the pair's place in its sender's list and in its receiver's. */
  private final int[][] upAt;

  private final int[][] downAt;

  /** Per level, per port: its flows at that level (its pairs' counts summed). */
  private final int[][] portFlows;

  /** Per level: its flows. */
  private final long[] flows;

  /**
   * Per level and pair, the rate of each of its flows from the level's last fill: level k's pair
   * key p at {@code k * ports^2 + p}, all levels in one array (see {@link #rates}).
   */
  private final double[] rate;

  /** Pair keys per level: ports^2. */
  private final int keyed;

  /**
   * Per level and receiver ({@code k * ports + receiver}): the {@link #clock} when a rate of one of
   * its pairs last changed, so that a reader summing a receiver's pair rates knows when its sum
   * still holds ({@link #columnChanged}).
   */
  private final long[] columnChanged;

  /**
   * Stamps the changes of rates (and, in {@link CountedFlows}, of the senders counted per
   * receiver).
   */
  private long clock = 1;

  private final int[] countsVersion;
  private final int[] filledVersion;
  private final double[][] filledFrom;
  private final double[][] filledLeft;
  private final boolean[] filledKept;

  // A fill's scratch, per port: the flows still rising there; whether it has saturated in the
  // rise, or was at or below PortBudget.EPS at the start with pairs to leave out (its pairs are
  // frozen or left out either way); the ports rising and those saturating in one step
  // (WaterFilling.rise); and the level being filled, for freeze.
  private final int[] rising;
  private final boolean[] saturated;
  private final int[] live;
  private final int[] due;
  private int filling;
  private final WaterFilling.Saturation freeze = this::freeze;

  /** Counts for {@code levels} levels on a fabric of {@code ports} ports, nothing counted. */
  LevelPairCounts(int levels, int ports) {
    if (!fits(levels, ports)) {
      throw new IllegalArgumentException(
          "pair counts for "
              + levels
              + " levels on "
              + ports
              + " ports would take more than "
              + (MAX_BYTES >> 20)
              + " MiB: fill such a fabric flow by flow");
    }
    this.ports = ports;
    keyed = ports * ports;
    count = new int[levels][keyed];
    ends = new int[levels][2 * ports][];
    listed = new int[levels][2 * ports];
    upAt = new int[levels][keyed];
    downAt = new int[levels][keyed];
    portFlows = new int[levels][2 * ports];
    flows = new long[levels];
    rate = new double[levels * keyed];
    columnChanged = new long[levels * ports];
    countsVersion = new int[levels];
    filledVersion = new int[levels];
    filledFrom = new double[levels][2 * ports];
    filledLeft = new double[levels][2 * ports];
    filledKept = new boolean[levels];
    rising = new int[2 * ports];
    saturated = new boolean[2 * ports];
    live = new int[2 * ports];
    due = new int[2 * ports];
  }

  /**
   * Whether counts for {@code levels} levels on {@code ports} ports stay within {@link #MAX_BYTES}.
   */
  static boolean fits(int levels, int ports) {
    return (levels + 1L) * ports * ports * PAIR_BYTES <= MAX_BYTES;
  }

  /** The largest fabric that counts for {@code levels} levels fit ({@link #fits}). */
  static int maxPorts(int levels) {
    int ports = (int) Math.sqrt((double) MAX_BYTES / ((levels + 1L) * PAIR_BYTES));
    while (!fits(levels, ports)) {
      ports--;
    }
    while (fits(levels, ports + 1)) {
      ports++;
    }
    return ports;
  }

  /** The fabric size the pair keys are made for. */
  int ports() {
    return ports;
  }

  /** Adds {@code delta} (1 or -1) flows to pair {@code key} at {@code level}. */
  void count(int level, int key, int delta) {
    int[] counts = count[level];
    countsVersion[level]++;
    int was = counts[key];
    counts[key] = was + delta;
    int src = key / ports;
    int down = ports + key - src * ports;
    portFlows[level][src] += delta;
    portFlows[level][down] += delta;
    flows[level] += delta;
    if (was == 0) {
      list(level, src, down, upAt[level], key);
      list(level, down, src, downAt[level], key);
    } else if (was + delta == 0) {
      unlist(level, src, upAt[level], key);
      unlist(level, down, downAt[level], key);
    }
  }

  /** Lists other end {@code end} on port {@code r} at {@code level}, for pair {@code key}. */
  private void list(int level, int r, int end, int[] at, int key) {
    int[] list = ends[level][r];
    int n = listed[level][r];
    if (list == null || n == list.length) {
      // n is below ports: a pair of this port is missing
      list = list == null ? new int[8] : Arrays.copyOf(list, Math.min(2 * n, ports));
      ends[level][r] = list;
    }
    list[n] = end;
    at[key] = n;
    listed[level][r] = n + 1;
  }

  /** Takes pair {@code key} off port {@code r}'s list at {@code level}. */
  private void unlist(int level, int r, int[] at, int key) {
    int[] list = ends[level][r];
    int j = at[key];
    int n = --listed[level][r];
    int last = list[n];
    list[j] = last;
    at[key(r, last)] = j;
  }

  /** The key of the pair at port {@code r} whose other end is {@code end}. */
  private int key(int r, int end) {
    return r < ports ? r * ports + end - ports : end * ports + r - ports;
  }

  /**
   * Whether level k's counts and the budget it finds are those of its last fill from the counts:
   * its pair rates are then still those of that fill, and the budget takes what that fill took.
   */
  boolean keptFill(int k, PortBudget budget) {
    double[] residual = budget.residual;
    if (!filledKept[k]
        || filledVersion[k] != countsVersion[k]
        || !Arrays.equals(filledFrom[k], residual)) {
      return false;
    }
    System.arraycopy(filledLeft[k], 0, residual, 0, residual.length);
    return true;
  }

  /**
   * Water-fills level k from its counts if its flows with capacity left at both ends are at least
   * {@code 2 * ports}: the rates are then bit for bit those the level's flows get offered one by
   * one. Returns false, having done nothing, for a level with fewer flows.
   *
   * <p>It is the water-filling {@link Allocator#fillGroup} does for that many flows offered one by
   * one, with resources listed by a scan of the ports: the same rise ({@link WaterFilling#rise}) on
   * the same counts in the same port order, so the same levels to the bit (a resource's level
   * depends only on how many flows rise on it, and ties go to the lower port either way). Only the
   * bookkeeping is by pair, from the ports' lists: a pair freezes when the first of its ends
   * saturates, so a saturating port freezes the pairs on its list whose other end has not saturated
   * yet, and the order it takes them in changes no level and no count. A pair with an end at or
   * below {@link PortBudget#EPS} before the fill is left out, as {@link Allocator#fillPairs} leaves
   * it: rate 0, and its flows are not counted on its other end.
   */
  boolean fill(int k, PortBudget budget) {
    double[] residual = budget.residual;
    int resources = 2 * ports;
    System.arraycopy(portFlows[k], 0, rising, 0, resources);
    long open = flows[k];
    for (int r = 0; r < resources; r++) {
      if (rising[r] > 0 && !(residual[r] > PortBudget.EPS)) {
        open -= take(k, r, 0, false);
      }
    }
    if (open < 2L * ports) {
      Arrays.fill(saturated, false);
      return false;
    }
    for (int r = 0; r < resources; r++) {
      if (saturated[r]) {
        zero(k, r);
      }
    }
    System.arraycopy(residual, 0, filledFrom[k], 0, resources);
    int alive = 0;
    for (int r = 0; r < resources; r++) {
      if (rising[r] > 0) {
        live[alive++] = r;
      }
    }
    filling = k;
    WaterFilling.rise(live, alive, rising, residual, due, freeze);
    Arrays.fill(saturated, false);
    System.arraycopy(residual, 0, filledLeft[k], 0, resources);
    filledVersion[k] = countsVersion[k];
    filledKept[k] = true;
    return true;
  }

  /** Port r of the level being filled saturates at level {@code at}. */
  private void freeze(int r, double at) {
    take(filling, r, at, true);
  }

  /**
   * Takes the pairs of port r at level k whose other end has not saturated off the rising counts of
   * both their ends, giving them rate {@code at} if {@code rated}, and marks r saturated. Returns
   * their flows.
   */
  private int take(int k, int r, double at, boolean rated) {
    int[] list = ends[k][r];
    int[] counts = count[k];
    int base = k * keyed;
    int taken = 0;
    for (int j = 0, n = listed[k][r]; j < n; j++) {
      int end = list[j];
      if (!saturated[end]) {
        int key = key(r, end);
        int c = counts[key];
        taken += c;
        rising[end] -= c;
        if (rated && rate[base + key] != at) {
          rate[base + key] = at;
          columnChanged[k * ports + (r < ports ? end - ports : r - ports)] = clock;
        }
      }
    }
    rising[r] -= taken;
    saturated[r] = true;
    return taken;
  }

  /** Zeroes the rates of port r's pairs at level k. */
  private void zero(int k, int r) {
    int[] list = ends[k][r];
    int base = k * keyed;
    for (int j = 0, n = listed[k][r]; j < n; j++) {
      int key = key(r, list[j]);
      if (rate[base + key] != 0) {
        rate[base + key] = 0;
        columnChanged[k * ports + key % ports] = clock;
      }
    }
  }

  /**
   * Zeroes the rates of level k's pairs, which a fill flow by flow is about to set ({@link
   * #setRate}): the level keeps nothing of its last fill from the counts.
   */
  void clearRates(int k) {
    filledKept[k] = false;
    for (int r = 0; r < ports; r++) {
      zero(k, r);
    }
  }

  /** Sets the rate of each flow of pair {@code src -> dst} at level k. */
  void setRate(int k, int src, int dst, double r) {
    int p = k * keyed + src * ports + dst;
    if (rate[p] != r) {
      rate[p] = r;
      columnChanged[k * ports + dst] = clock;
    }
  }

  /**
   * The clock: rates that change from now on are stamped with it, until {@link #tick}. A reader
   * that sums rates notes the clock when it does and ticks it: the sum holds while no rate it read
   * was stamped later ({@link #columnChanged}).
   */
  long clock() {
    return clock;
  }

  /** Advances the {@link #clock}; returns its value before. */
  long tick() {
    return clock++;
  }

  /**
   * The {@link #clock} when a rate of a pair into {@code receiver} at level k last changed (0 if
   * none did since the counts were made).
   */
  long columnChanged(int k, int receiver) {
    return columnChanged[k * ports + receiver];
  }

  /** The rate of each flow of pair {@code src -> dst} at level k. */
  double rate(int k, int src, int dst) {
    return rate[k * keyed + src * ports + dst];
  }

  /**
   * Every level's rates (read-only): level k's pair {@code src -> dst} at {@link #base base(k)}
   * {@code + src * ports + dst}, so level 0's by pair key alone. One array, so that a reader of
   * many levels' pairs (a simulator moving flows by (level, pair) group) reads them by one flat
   * key.
   */
  double[] rates() {
    return rate;
  }

  /** Where level k's rates start in {@link #rates}: {@code k * ports^2}. */
  int base(int k) {
    return k * keyed;
  }
}
