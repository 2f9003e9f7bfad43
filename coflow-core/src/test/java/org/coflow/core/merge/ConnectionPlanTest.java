package org.coflow.core.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Courier Alg. 3 as a fetching agent plans its connections, without sockets. */
class ConnectionPlanTest {
  private static final long MB = 1 << 20;

  private static ConnectionPlan.Peer<String> peer(
      String key, int index, long bytes, int order, int usable) {
    return new ConnectionPlan.Peer<>(key, index, bytes, order, true, usable);
  }

  private static ConnectionPlan.Peer<String> idle(String key, int index, int usable) {
    return new ConnectionPlan.Peer<>(key, index, 0, 0, false, usable);
  }

  @Test
  void withMorePeersThanMaxNumTheMostImportantGoFirst() {
    ConnectionPlan<String> plan =
        ConnectionPlan.plan(
            List.of(
                peer("a", 0, 10 * MB, 2, 0),
                peer("b", 1, 10 * MB, 0, 0),
                peer("c", 2, 10 * MB, 1, 0)),
            2,
            4 * MB);
    assertEquals(1, plan.wanted("b"));
    assertEquals(1, plan.wanted("c"));
    assertEquals(0, plan.wanted("a"), "the least important peer waits");
  }

  @Test
  void equalPrioritiesServeTheLargerUnifiedFlowFirst() {
    ConnectionPlan<String> plan =
        ConnectionPlan.plan(
            List.of(peer("small", 0, MB, 0, 0), peer("large", 1, 50 * MB, 0, 0)), 1, 4 * MB);
    assertEquals(1, plan.wanted("large"));
    assertEquals(0, plan.wanted("small"));
  }

  @Test
  void withFewerPeersTheBudgetSplitsFlowsAboveMinSizeOnly() {
    ConnectionPlan<String> plan =
        ConnectionPlan.plan(
            List.of(peer("big", 0, 100 * MB, 0, 0), peer("tiny", 1, MB, 1, 0)), 8, 4 * MB);
    assertEquals(1, plan.wanted("tiny"), "a flow below MinSize is never split");
    int total = plan.wanted("big") + plan.wanted("tiny");
    assertEquals(8, total, "the spare budget goes to the flow above MinSize");
  }

  @Test
  void idleConnectionsDrainOnlyWhenAnotherPeerIsShort() {
    List<ConnectionPlan.Peer<String>> nobodyShort =
        List.of(idle("old", 0, 2), peer("new", 1, MB, 0, 1));
    ConnectionPlan<String> keep = ConnectionPlan.plan(nobodyShort, 3, 4 * MB);
    assertEquals(0, keep.drain("old"), "idle connections stay for the next burst");

    List<ConnectionPlan.Peer<String>> short1 = List.of(idle("old", 0, 2), peer("new", 1, MB, 0, 0));
    ConnectionPlan<String> make = ConnectionPlan.plan(short1, 2, 4 * MB);
    assertEquals(1, make.wanted("new"));
    assertEquals(1, make.drain("old"), "exactly the shortfall drains");
  }

  @Test
  void opensNoMoreThanTheBudgetLeaves() {
    assertEquals(2, ConnectionPlan.toOpen(4, 2, 5, 8));
    assertEquals(1, ConnectionPlan.toOpen(4, 2, 7, 8));
    assertEquals(0, ConnectionPlan.toOpen(4, 2, 8, 8));
    assertEquals(0, ConnectionPlan.toOpen(1, 3, 0, 8));
  }
}
