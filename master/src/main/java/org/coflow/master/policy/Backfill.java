package org.coflow.master.policy;

import java.util.ArrayList;
import java.util.List;
import org.coflow.api.model.ClusterState;
import org.coflow.api.model.Flow;

/**
 * The work-conserving step every policy ends with: what the policy left unallocated is handed
 * out class by class in priority order, and inside a priority class max-min fairly (water-filling
 * on the leftover capacity). Afterwards every flow has at least one saturated port, so no flow
 * waits while both of its ports have spare capacity; more important classes get leftovers first;
 * and flows of equal importance get equal shares, so the many identical flows of a coflow keep
 * moving together instead of one grabbing a port.
 */
public final class Backfill {
  private Backfill() {}

  /**
   * @param eligible flows that may receive leftovers, by index; null means all (Courier passes the
   *     flows that have a connection)
   */
  public static void fill(ClusterState state, PortBudget budget, Schedule schedule, boolean[] eligible,
      Allocator allocator) {
    List<Flow> flows = state.flows();
    int[] order = schedule.order();
    List<Flow> group = new ArrayList<>();
    int n = schedule.orderSize();
    for (int k = 0; k < n; ) {
      int cls = schedule.priority(order[k]);
      group.clear();
      for (; k < n && schedule.priority(order[k]) == cls; k++) {
        int i = order[k];
        if (eligible == null || eligible[i]) {
          Flow f = flows.get(i);
          if (budget.available(f.src(), f.dst()) > PortBudget.EPS) {
            group.add(f);
          }
        }
      }
      allocator.maxMinFair(group, budget, schedule);
    }
  }
}
