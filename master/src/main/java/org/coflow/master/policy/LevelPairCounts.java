package org.coflow.master.policy;

import java.util.Arrays;

/**
 * Active flows per priority level counted by (sender, receiver) pair, kept from one decision to the
 * next, and each level's water-filling from those counts: {@link Creek}'s levels, and {@link
 * Baraat}'s first class as one level.
 *
 * <p>{@code count[k][sender * ports + receiver]} is the number of flows of that pair at level k,
 * with the pairs counted at level k listed in {@code keys[k][0 .. pairs[k])} and {@code
 * slot[k][key]} the position + 1 of a key in that list (0 when not listed). A level with many flows
 * is then water-filled at the cost of its pairs, not its flows ({@link #fill}).
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
   * Bytes per pair, at most: per level a count, a list slot, a rate and the listed key, sender and
   * receiver (the lists never grow past ports squared); once, a fill's scratch, as large.
   */
  private static final int PAIR_BYTES = 5 * Integer.BYTES + Double.BYTES;

  private final int ports;
  private final int[][] count;
  private final int[][] slot;
  private final int[][] keys;

  /** Per level, beside {@code keys}: each listed pair's sender and receiver port. */
  private final int[][] keySrc;

  private final int[][] keyDst;

  private final int[] pairs;

  /** Per level, by pair key: the rate of each of its flows, from the level's last fill. */
  private final double[][] rate;

  private final int[] countsVersion;
  private final int[] filledVersion;
  private final double[][] filledFrom;
  private final double[][] filledLeft;
  private final boolean[] filledKept;

  // A fill's scratch: the pairs with capacity left at both ends as the water-filling takes them
  // (sender, ports + receiver, flows, key) and their rates; the keys of the other pairs.
  private int[] fillUp = new int[64];
  private int[] fillDown = new int[64];
  private int[] fillCount = new int[64];
  private int[] fillKey = new int[64];
  private double[] fillRate = new double[64];
  private int[] blocked = new int[64];

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
    int keyed = ports * ports;
    count = new int[levels][keyed];
    slot = new int[levels][keyed];
    keys = new int[levels][64];
    keySrc = new int[levels][64];
    keyDst = new int[levels][64];
    pairs = new int[levels];
    rate = new double[levels][keyed];
    countsVersion = new int[levels];
    filledVersion = new int[levels];
    filledFrom = new double[levels][2 * ports];
    filledLeft = new double[levels][2 * ports];
    filledKept = new boolean[levels];
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
    int[] slots = slot[level];
    int[] listed = keys[level];
    if (was == 0) {
      int n = pairs[level];
      if (n == listed.length) {
        int len = Math.min(2 * n, ports * ports); // n is below ports squared: a pair is missing
        listed = Arrays.copyOf(listed, len);
        keys[level] = listed;
        keySrc[level] = Arrays.copyOf(keySrc[level], len);
        keyDst[level] = Arrays.copyOf(keyDst[level], len);
      }
      int src = key / ports;
      listed[n] = key;
      keySrc[level][n] = src;
      keyDst[level][n] = key - src * ports;
      slots[key] = n + 1;
      pairs[level] = n + 1;
    } else if (was + delta == 0) {
      int j = slots[key] - 1;
      int n = --pairs[level];
      int last = listed[n];
      listed[j] = last;
      keySrc[level][j] = keySrc[level][n];
      keyDst[level][j] = keyDst[level][n];
      slots[last] = j + 1;
      slots[key] = 0;
    }
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
   * one ({@link Allocator#fillManyPairs}). Returns false, having done nothing, for a level with
   * fewer flows.
   */
  boolean fill(int k, PortBudget budget, Allocator allocator) {
    int m = pairs[k];
    if (fillUp.length < m) {
      int len = Math.min(Math.max(m, 2 * fillUp.length), ports * ports);
      fillUp = new int[len];
      fillDown = new int[len];
      fillCount = new int[len];
      fillKey = new int[len];
      fillRate = new double[len];
      blocked = new int[len];
    }
    int[] listed = keys[k];
    int[] srcs = keySrc[k];
    int[] dsts = keyDst[k];
    int[] counts = count[k];
    // One pass over the listed pairs: those with capacity left at both ends in listed order, as
    // Allocator.fillPairs would take them, and the others apart.
    long flows = 0;
    int open = 0;
    int shut = 0;
    for (int j = 0; j < m; j++) {
      int key = listed[j];
      int src = srcs[j];
      int dst = dsts[j];
      if (budget.available(src, dst) > PortBudget.EPS) {
        int c = counts[key];
        fillUp[open] = src;
        fillDown[open] = ports + dst;
        fillCount[open] = c;
        fillKey[open++] = key;
        flows += c;
      } else {
        blocked[shut++] = key;
      }
    }
    if (flows < 2L * ports) {
      return false;
    }
    double[] residual = budget.residual;
    System.arraycopy(residual, 0, filledFrom[k], 0, residual.length);
    allocator.fillManyPairs(fillUp, fillDown, fillCount, open, budget, fillRate);
    double[] rates = rate[k];
    for (int j = 0; j < open; j++) {
      rates[fillKey[j]] = fillRate[j];
    }
    for (int j = 0; j < shut; j++) {
      rates[blocked[j]] = 0;
    }
    System.arraycopy(residual, 0, filledLeft[k], 0, residual.length);
    filledVersion[k] = countsVersion[k];
    filledKept[k] = true;
    return true;
  }

  /**
   * Zeroes the rates of level k's pairs, which a fill flow by flow is about to set ({@link
   * #setRate}): the level keeps nothing of its last fill from the counts.
   */
  void clearRates(int k) {
    double[] rates = rate[k];
    int[] listed = keys[k];
    filledKept[k] = false;
    for (int j = 0, m = pairs[k]; j < m; j++) {
      rates[listed[j]] = 0;
    }
  }

  /** Sets the rate of each flow of pair {@code src -> dst} at level k. */
  void setRate(int k, int src, int dst, double r) {
    rate[k][src * ports + dst] = r;
  }

  /** The rate of each flow of pair {@code src -> dst} at level k. */
  double rate(int k, int src, int dst) {
    return rate[k][src * ports + dst];
  }

  /** Level k's rates by pair key {@code src * ports + dst} (read-only). */
  double[] rates(int k) {
    return rate[k];
  }
}
