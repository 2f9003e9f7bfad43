package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.PairIndex;

/**
 * The flows one max-min step shares the budget among, gathered one by one, then water-filled
 * together: flow by flow, or by (sender, receiver) pair with multiplicities when many share pairs.
 * The members' ends and indices are copied into int arrays as they are added: the passes stay on
 * those arrays instead of dereferencing flows scattered over the heap.
 *
 * <p>Not thread-safe: scratch arrays sized to the fabric and the largest group.
 */
final class FlowGroup {
  private final int ports;
  private final WaterFilling waterFilling;
  private final RateHand hand;

  /** Per member: uplink resource, downlink resource (ports + dst), flow index. */
  private int[] up = new int[1024];

  private int[] down = new int[1024];
  private int[] index = new int[1024];

  /** Per member offered from a coflow: its position among the coflow's active flows. */
  private int[] position = new int[1024];

  private int size;

  /** Per member (or pair) after a fill: the rate each of its flows got. */
  private double[] levels = new double[0];

  private int[] ones = new int[0];

  /** The (sender, receiver) pairs being gathered, at their positions: as many as the members. */
  private final PairIndex gathered = new PairIndex();

  private int[] memberPair = new int[0];
  private int[] pairUp = new int[0];
  private int[] pairDown = new int[0];
  private int[] pairMult = new int[0];
  private int[] pairAt = new int[0];
  private long pairFills;

  FlowGroup(int ports, WaterFilling waterFilling, RateHand hand) {
    this.ports = ports;
    this.waterFilling = waterFilling;
    this.hand = hand;
  }

  int size() {
    return size;
  }

  void clear() {
    size = 0;
  }

  /**
   * Adds the active flow at dense index {@code flowIndex}, from port {@code src} to {@code dst}.
   */
  void add(int src, int dst, int flowIndex) {
    if (size == up.length) {
      up = Arrays.copyOf(up, 2 * size);
      down = Arrays.copyOf(down, 2 * size);
      index = Arrays.copyOf(index, 2 * size);
      position = Arrays.copyOf(position, 2 * size);
    }
    up[size] = src;
    down[size] = ports + dst;
    index[size] = flowIndex;
    size++;
  }

  /** {@link #add} of a coflow's active flow, at position {@code k} among them. */
  void add(int src, int dst, int flowIndex, int k) {
    add(src, dst, flowIndex);
    position[size - 1] = k;
  }

  /** The position of member {@code i} in its coflow, if it was added with one. */
  int position(int i) {
    return position[i];
  }

  /** The rate member {@code i} got from the last {@link #fill}. */
  double level(int i) {
    return levels[i];
  }

  /** Per member of the last fill noted in a memo: the saturation that froze it. */
  int[] eventOf() {
    return waterFilling.eventOf();
  }

  /** Per member of the last fill noted in a memo: its other end's slot in the memo. */
  int[] slotOf() {
    return waterFilling.slotOf();
  }

  /**
   * Max-min fair sharing of the budget among the members, adding their rates to the schedule. With
   * {@code tryPairs}, a large group whose members share few (sender, receiver) pairs is
   * water-filled as pairs. If {@code noting} is not null (not with {@code tryPairs}), the
   * water-filling's rise is noted in it.
   */
  void fill(PortBudget budget, Schedule schedule, boolean tryPairs, StepMemo noting) {
    int n = size;
    if (n == 0) {
      return;
    }
    if (ones.length < n) {
      ones = new int[Math.max(n, 2 * ones.length)];
      Arrays.fill(ones, 1);
    }
    if (levels.length < n) {
      levels = new double[Math.max(n, 2 * levels.length)];
    }
    boolean byPorts = n >= 2 * ports;
    if (tryPairs && byPorts && fillMembersByPair(n, budget, schedule)) {
      return;
    }
    waterFilling.fill(up, down, ones, n, budget.residual, levels, byPorts, noting);
    schedule.addRates(index, levels, n);
  }

  /** How many groups were filled as pairs (for tests). */
  long pairFills() {
    return pairFills;
  }

  /**
   * {@link #fill} of a large group whose members share few (sender, receiver) pairs: the members
   * are gathered by pair and water-filled as pairs with multiplicities, which gives every member
   * bit for bit the rate water-filling the members would (same counts per resource, resources
   * listed by port in both cases) at the cost of the pairs. Gives up, allocating nothing, as soon
   * as the pairs are more than half the members.
   *
   * @return true if the group was filled
   */
  private boolean fillMembersByPair(int n, PortBudget budget, Schedule schedule) {
    if (memberPair.length < n) {
      memberPair = new int[Math.max(n, 2 * memberPair.length)];
    }
    int limit = n / 2;
    ensurePairs(limit + 1);
    int m = 0;
    for (int i = 0; i < n; i++) {
      int slot = gathered.add(up[i], down[i]);
      if (slot == m) {
        if (m == limit) {
          gathered.clear();
          return false;
        }
        m++;
        pairUp[slot] = up[i];
        pairDown[slot] = down[i];
        pairMult[slot] = 0;
      }
      pairMult[slot]++;
      memberPair[i] = slot;
    }
    gathered.clear();
    pairFills++;
    waterFilling.fill(pairUp, pairDown, pairMult, m, budget.residual, levels, true, null);
    hand.ensure(n);
    for (int i = 0; i < n; i++) {
      hand.rate[i] = levels[memberPair[i]];
    }
    schedule.addRates(index, hand.rate, n);
    return true;
  }

  private void ensurePairs(int n) {
    if (pairUp.length < n) {
      int len = Math.max(n, 2 * pairUp.length);
      pairUp = new int[len];
      pairDown = new int[len];
      pairMult = new int[len];
      pairAt = new int[len];
      levels = new double[Math.max(len, levels.length)];
    }
  }

  /** See {@link Allocator#fillPairs}. */
  void fillPairs(int[] src, int[] dst, int[] count, int n, PortBudget budget, double[] rate) {
    ensurePairs(n);
    int m = 0;
    for (int k = 0; k < n; k++) {
      rate[k] = 0;
      if (count[k] > 0 && budget.available(src[k], dst[k]) > PortBudget.EPS) {
        pairUp[m] = src[k];
        pairDown[m] = ports + dst[k];
        pairMult[m] = count[k];
        pairAt[m++] = k;
      }
    }
    waterFilling.fill(pairUp, pairDown, pairMult, m, budget.residual, levels, m >= 2 * ports, null);
    for (int j = 0; j < m; j++) {
      rate[pairAt[j]] = levels[j];
    }
  }
}
