package org.coflow.core.policy;

import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;

/**
 * The work-conserving step every policy ends with: what the policy left unallocated is handed out
 * class by class in priority order, and inside a priority class max-min fairly (water-filling on
 * the leftover capacity). Afterwards every flow has at least one saturated port, so no flow waits
 * while both of its ports have spare capacity; more important classes get leftovers first; and
 * flows of equal importance get equal shares, so the many identical flows of a coflow keep moving
 * together instead of one grabbing a port.
 */
public final class Backfill {
  private Backfill() {}

  /**
   * @param eligible flows that may receive leftovers, by index; null means all (Courier passes the
   *     flows that have a connection)
   */
  public static void fill(
      ClusterState state,
      PortBudget budget,
      Schedule schedule,
      boolean[] eligible,
      Allocator allocator) {
    if (!anyFlowWithSpareAtBothEnds(state, budget)) {
      return;
    }
    PriorityOrder order = schedule.order();
    int segments = order.segments();
    for (int k = 0; k < segments; ) {
      int cls = order.segmentClass(k);
      Coflow whole = order.segmentCoflow(k);
      if (eligible == null
          && whole != null
          && order.segmentReceivers(k) == null
          && order.segmentPositions(k) == null
          && (k + 1 == segments || order.segmentClass(k + 1) != cls)) {
        // A class of one whole coflow: its own step, replayed when its inputs did not change.
        allocator.backfillCoflow(whole, budget, schedule);
        k++;
        continue;
      }
      allocator.clearGroup();
      for (; k < segments && order.segmentClass(k) == cls; k++) {
        Coflow c = order.segmentCoflow(k);
        int[] positions = order.segmentPositions(k);
        if (c == null) {
          int index = order.segmentFlow(k);
          offer(index, state.srcAt(index), state.dstAt(index), budget, eligible, allocator);
        } else if (positions != null) {
          for (int p = order.segmentFrom(k), end = order.segmentTo(k); p < end; p++) {
            int at = positions[p];
            offer(c.activeIndex(at), c.activeSrc(at), c.activeDst(at), budget, eligible, allocator);
          }
        } else if (Allocator.mayTake(c, budget)) {
          allocator.offerCoflow(c, order.segmentReceivers(k), cls + 1, budget, eligible);
        }
      }
      allocator.fillGroup(budget, schedule);
    }
  }

  private static void offer(
      int index, int src, int dst, PortBudget budget, boolean[] eligible, Allocator allocator) {
    if ((eligible == null || eligible[index]) && budget.available(src, dst) > PortBudget.EPS) {
      allocator.addToGroup(src, dst, index);
    }
  }

  /**
   * Cheap test that a backfill pass could hand out anything: some active flow has capacity left at
   * both ends. It costs the ports, then the lesser of the (spare uplink, spare downlink) pairs of
   * ports with flows and the active pairs, never the flows.
   */
  static boolean anyFlowWithSpareAtBothEnds(ClusterState state, PortBudget budget) {
    int ports = budget.ports();
    int[] spareUp = new int[ports];
    int[] spareDown = new int[ports];
    int u = 0;
    int d = 0;
    for (int p = 0; p < ports; p++) {
      if (budget.up(p) > PortBudget.EPS && state.activeFlowsFrom(p) > 0) {
        spareUp[u++] = p;
      }
      if (budget.down(p) > PortBudget.EPS && state.activeFlowsTo(p) > 0) {
        spareDown[d++] = p;
      }
    }
    if ((long) u * d > state.pairSlots()) {
      for (int k = 0, end = state.pairSlots(); k < end; k++) {
        if (state.activeFlowsAt(k) > 0
            && budget.up(state.pairSrc(k)) > PortBudget.EPS
            && budget.down(state.pairDst(k)) > PortBudget.EPS) {
          return true;
        }
      }
      return false;
    }
    for (int i = 0; i < u; i++) {
      for (int k = 0; k < d; k++) {
        if (state.activeFlows(spareUp[i], spareDown[k]) > 0) {
          return true;
        }
      }
    }
    return false;
  }
}
