package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

/**
 * The steps a {@link Schedule} holds rather than writes (see {@link Schedule#hold}): step h gives
 * the active flows of {@link #coflow coflow(h)} at positions {@code at(h)[0 .. flows(h))} the rates
 * {@code rates(h)[..]}, and lists which of them move at another rate already ({@link #changes}). A
 * fluid replay that knows the held flows move at these rates passes over the steps and reads only
 * their changes; every other reader has the schedule write them first.
 */
public final class HeldSteps {
  private Coflow[] coflow = new Coflow[0];
  private int[][] at = new int[0][];
  private double[][] rates = new double[0][];
  private int[] count = new int[0];

  /** Per step: how many flows were served when it was held (where writing it lists them). */
  private int[] where = new int[0];

  /**
   * Per step: the indices into its positions of the flows whose rates differ from those they move
   * at, {@code changed[h][0 .. changes[h])}.
   */
  private int[][] changed = new int[0][];

  private int[] changes = new int[0];

  private int size;
  private int flows;

  /**
   * The coflow the rates being added are given to, as its step says ({@link #giving}), or null if
   * not said.
   */
  private Coflow giving;

  /**
   * Whether rates were added without saying to which coflow: from then on, no step is held (its
   * flows may have a rate already).
   */
  private boolean anonymous;

  /**
   * By coflow slot: {@link #stamp} once the coflow was given a rate, held or written; in {@code
   * heldMark}, once a step of it is held.
   */
  private int[] given = new int[0];

  private int[] heldMark = new int[0];

  /** The schedule's number among those that recycled these arrays. */
  private int stamp = 1;

  HeldSteps() {}

  /** Takes over the arrays of {@code spare}'s steps, which then holds none. */
  HeldSteps(HeldSteps spare) {
    coflow = spare.coflow;
    at = spare.at;
    rates = spare.rates;
    count = spare.count;
    where = spare.where;
    changed = spare.changed;
    changes = spare.changes;
    Arrays.fill(coflow, 0, spare.size, null);
    spare.size = 0;
    spare.flows = 0;
    given = spare.given;
    heldMark = spare.heldMark;
    stamp = spare.stamp + 1;
    if (stamp == Integer.MAX_VALUE) {
      Arrays.fill(given, 0);
      Arrays.fill(heldMark, 0);
      stamp = 1;
    }
  }

  /** Says that the rates added until the next call go to flows of {@code c} (null: not said). */
  void giving(Coflow c) {
    giving = c;
  }

  /** Notes that rates are being added, to the coflow said by {@link #giving} or to any. */
  void given() {
    if (giving == null) {
      anonymous = true;
    } else {
      mark(giving);
    }
  }

  /**
   * Whether a step of {@code c} may be held: {@code c} was given no rate in this schedule yet, and
   * every rate given so far was given to a coflow its step said.
   */
  boolean mayHold(Coflow c) {
    int slot = c.slot();
    return !anonymous && !(slot < given.length && given[slot] == stamp);
  }

  /**
   * Whether rates about to be added may go to flows of a held step (the coflow they go to is not
   * said, or has a held step): the held steps are then written first, so that every flow's rates
   * are added in the order they were given. Rates said to go to another coflow leave them held.
   */
  boolean mayAddToHeld() {
    if (giving == null) {
      return true;
    }
    int slot = giving.slot();
    return slot < heldMark.length && heldMark[slot] == stamp;
  }

  private void mark(Coflow c) {
    int slot = c.slot();
    if (slot >= given.length) {
      given = Arrays.copyOf(given, Math.max(slot + 1, Math.max(64, 2 * given.length)));
      heldMark = Arrays.copyOf(heldMark, given.length);
    }
    given[slot] = stamp;
  }

  /**
   * Holds a step (copying its arrays, so the caller may change them): {@code c}'s active flows at
   * {@code positions[0 .. n)} get {@code rates}, {@code changedAt[0 .. changedCount)} of them move
   * at another rate now, and {@code served} flows were listed as served before it.
   */
  void add(
      Coflow c,
      int[] positions,
      double[] rates,
      int n,
      int[] changedAt,
      int changedCount,
      int served) {
    mark(c);
    heldMark[c.slot()] = stamp;
    int h = size;
    if (h == coflow.length) {
      int len = Math.max(16, 2 * h);
      coflow = Arrays.copyOf(coflow, len);
      at = Arrays.copyOf(at, len);
      this.rates = Arrays.copyOf(this.rates, len);
      count = Arrays.copyOf(count, len);
      where = Arrays.copyOf(where, len);
      changed = Arrays.copyOf(changed, len);
      changes = Arrays.copyOf(changes, len);
    }
    if (at[h] == null || at[h].length < n) {
      int len = Math.max(n, at[h] == null ? 0 : 2 * at[h].length);
      at[h] = new int[len];
      this.rates[h] = new double[len];
    }
    System.arraycopy(positions, 0, at[h], 0, n);
    System.arraycopy(rates, 0, this.rates[h], 0, n);
    if (changed[h] == null || changed[h].length < changedCount) {
      changed[h] = new int[Math.max(changedCount, changed[h] == null ? 16 : 2 * changed[h].length)];
    }
    if (changedCount > 0) {
      System.arraycopy(changedAt, 0, changed[h], 0, changedCount);
    }
    changes[h] = changedCount;
    coflow[h] = c;
    where[h] = served;
    count[h] = n;
    size++;
    flows += n;
  }

  /** Forgets every step (they were written). */
  void clear() {
    Arrays.fill(coflow, 0, size, null);
    size = 0;
    flows = 0;
  }

  /** The positions of step {@code h}'s flows among its coflow's active flows. Do not modify. */
  int[] at(int h) {
    return at[h];
  }

  /** The rates step {@code h} gives its flows, in the order of {@link #at}. Do not modify. */
  double[] rates(int h) {
    return rates[h];
  }

  /** How many steps are held; 0 once they are written. */
  public int size() {
    return size;
  }

  /** The coflow of step {@code h}. */
  public Coflow coflow(int h) {
    return coflow[h];
  }

  /** How many flows step {@code h} gives a rate. */
  public int flows(int h) {
    return count[h];
  }

  /** How many flows the steps give a rate, in all. */
  public int flows() {
    return flows;
  }

  /**
   * Where step {@code h}'s flows are listed among the served once written: after the first {@code
   * where(h)} flows of {@link Schedule#written} (non-decreasing in {@code h}).
   */
  public int where(int h) {
    return where[h];
  }

  /**
   * How many flows of step {@code h} are given another rate than they move at: {@link #changedFlow}
   * and {@link #changedRate} of {@code 0 .. changes(h)}, in the order writing the step would list
   * them.
   */
  public int changes(int h) {
    return changes[h];
  }

  /** The flow (dense index) of the {@code k}-th change of step {@code h}. */
  public int changedFlow(int h, int k) {
    return coflow[h].activeIndex(at[h][changed[h][k]]);
  }

  /** The rate step {@code h} gives the flow of its {@code k}-th change. */
  public double changedRate(int h, int k) {
    return rates[h][changed[h][k]];
  }
}
