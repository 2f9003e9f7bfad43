package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Fabric;

/**
 * {@link FairSharing}'s water-filling for flows known only by (sender, receiver) pair, kept up to
 * date as flows come and go, for an event loop that asks for the shares after every change (the
 * simulator's pair loop).
 *
 * <p>Water-filling freezes a flow at the level where the first of its two ports saturates, so the
 * rate of every flow from {@code u} to {@code d} is {@code min(level(u), level(d))}, with a port's
 * level the water level at which it saturated (infinity if it never did). {@link #fill} computes
 * those levels from the flows per port and the pairs each port has, both maintained by {@link
 * #add}: a fill costs the ports and, for each port that saturates, its pairs, with no per-pair
 * set-up. Its arithmetic is {@link Allocator#fillPairs}'s step for step (the same residuals, the
 * same integer counts, the same levels), so a pair's rate is bit-for-bit the one {@link
 * FairSharing} gives each flow of that pair ({@code PairSharesTest}).
 */
public final class PairShares {
  private final int ports;
  private final double[] capacity;

  /** Active flows per pair, by key {@code src * ports + dst}. */
  private final int[] flows;

  /** Active flows per resource: uplink {@code p}, downlink {@code ports + p}. */
  private final int[] perResource;

  /** Per resource, the other ends of its pairs with flows (uplinks list downlinks and back). */
  private final int[][] partners;

  private final int[] partnerCount;

  /** Per resource, the flows of the pair with each partner (in {@link #partners}' order). */
  private final int[][] partnerFlows;

  /** Position of a pair in its sender's list and in its receiver's list, by key. */
  private final int[] posUp;

  private final int[] posDown;

  // Scratch of one fill.
  private final double[] residual;
  private final int[] rising;
  private final int[] live;
  private final int[] due;
  private final boolean[] saturated;
  private final double[] level;

  public PairShares(Fabric fabric) {
    this.ports = fabric.size();
    int resources = 2 * ports;
    this.capacity = new double[resources];
    for (int p = 0; p < ports; p++) {
      capacity[p] = fabric.uplink(p);
      capacity[ports + p] = fabric.downlink(p);
    }
    this.flows = new int[ports * ports];
    this.perResource = new int[resources];
    this.partners = new int[resources][];
    this.partnerCount = new int[resources];
    this.partnerFlows = new int[resources][];
    this.posUp = new int[ports * ports];
    this.posDown = new int[ports * ports];
    this.residual = new double[resources];
    this.rising = new int[resources];
    this.live = new int[resources];
    this.due = new int[resources];
    this.saturated = new boolean[resources];
    this.level = new double[resources];
    for (int r = 0; r < resources; r++) {
      partners[r] = new int[4];
      partnerFlows[r] = new int[4];
    }
  }

  public int ports() {
    return ports;
  }

  /** Active flows from {@code src} to {@code dst}. */
  public int flows(int src, int dst) {
    return flows[src * ports + dst];
  }

  /**
   * Adds {@code delta} flows (negative: removes) from {@code src} to {@code dst}.
   *
   * @throws IllegalArgumentException if the pair would have fewer than no flows
   */
  public void add(int src, int dst, int delta) {
    int key = src * ports + dst;
    int before = flows[key];
    int after = before + delta;
    if (after < 0) {
      throw new IllegalArgumentException(
          "pair " + src + "->" + dst + " has " + before + " flows, cannot remove " + -delta);
    }
    flows[key] = after;
    perResource[src] += delta;
    perResource[ports + dst] += delta;
    if (after == 0) {
      if (before > 0) {
        unlink(src, posUp[key]);
        unlink(ports + dst, posDown[key]);
      }
      return;
    }
    if (before == 0) {
      posUp[key] = link(src, ports + dst);
      posDown[key] = link(ports + dst, src);
    }
    partnerFlows[src][posUp[key]] = after;
    partnerFlows[ports + dst][posDown[key]] = after;
  }

  /** Appends {@code other} to resource {@code r}'s partners; returns its position. */
  private int link(int r, int other) {
    int n = partnerCount[r];
    if (n == partners[r].length) {
      partners[r] = Arrays.copyOf(partners[r], 2 * n);
      partnerFlows[r] = Arrays.copyOf(partnerFlows[r], 2 * n);
    }
    partners[r][n] = other;
    partnerCount[r] = n + 1;
    return n;
  }

  /** Removes position {@code k} of resource {@code r}'s partners, moving the last one there. */
  private void unlink(int r, int k) {
    int last = --partnerCount[r];
    if (k != last) {
      int moved = partners[r][last];
      partners[r][k] = moved;
      partnerFlows[r][k] = partnerFlows[r][last];
      if (r < ports) {
        posUp[r * ports + (moved - ports)] = k;
      } else {
        posDown[moved * ports + (r - ports)] = k;
      }
    }
  }

  /**
   * Water-fills the fabric among the active flows: afterwards {@link #rate} gives every pair's
   * per-flow rate.
   */
  public void fill() {
    int resources = 2 * ports;
    int alive = 0;
    for (int r = 0; r < resources; r++) {
      level[r] = Double.POSITIVE_INFINITY;
      saturated[r] = false;
      rising[r] = perResource[r];
      // A port without capacity left gives its flows nothing (fillPairs leaves such pairs out).
      if (perResource[r] > 0) {
        residual[r] = capacity[r];
        live[alive++] = r;
      }
    }
    for (int k = 0; k < alive; k++) {
      int r = live[k];
      if (residual[r] <= PortBudget.EPS) {
        freeze(r, 0);
      }
    }
    WaterFilling.rise(live, alive, rising, residual, due, freeze);
  }

  /** Resource {@code r} saturates at {@code at}: its pairs still rising stop there. */
  private final WaterFilling.Saturation freeze = this::freeze;

  private void freeze(int r, double at) {
    saturated[r] = true;
    level[r] = at;
    int[] others = partners[r];
    int[] flowsWith = partnerFlows[r];
    int gone = 0;
    for (int k = 0, n = partnerCount[r]; k < n; k++) {
      int q = others[k];
      if (!saturated[q]) {
        int m = flowsWith[k];
        rising[q] -= m;
        gone += m;
      }
    }
    rising[r] -= gone;
  }

  /** Per-flow rate of pair {@code src -> dst} in the last {@link #fill} (0 if it has no flows). */
  public double rate(int src, int dst) {
    if (flows[src * ports + dst] == 0) {
      return 0;
    }
    return Math.min(level[src], level[ports + dst]);
  }

  /** Water level at which uplink {@code port} saturated in the last fill (infinity if never). */
  public double upLevel(int port) {
    return level[port];
  }

  /** Water level at which downlink {@code port} saturated in the last fill (infinity if never). */
  public double downLevel(int port) {
    return level[ports + port];
  }
}
