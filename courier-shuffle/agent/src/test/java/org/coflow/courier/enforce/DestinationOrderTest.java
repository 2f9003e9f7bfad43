package org.coflow.courier.enforce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DestinationOrderTest {
  private final Object bulk = new Object();
  private final Object lane = new Object();

  @Test
  void aLaneGoesBeforeBulkOfEqualPriorityOnly() {
    DestinationOrder order = new DestinationOrder();
    AtomicInteger bulkWakes = new AtomicInteger();
    order.update("h", bulk, DestinationOrder.rank(2, false), bulkWakes::incrementAndGet);
    order.update("h", lane, DestinationOrder.rank(2, true), () -> {});
    assertFalse(
        order.maySend("h", bulk, DestinationOrder.rank(2, false)),
        "bulk of equal priority waits while the lane has something ready");
    assertTrue(order.maySend("h", lane, DestinationOrder.rank(2, true)));
    assertTrue(
        order.maySend("h", bulk, DestinationOrder.rank(1, false)),
        "bulk of a better priority does not wait for the lane");
    assertTrue(order.maySend("other", bulk, DestinationOrder.rank(2, false)), "another host");
    // The lane runs dry: the bulk connection it held back is woken and may go.
    order.update("h", lane, DestinationOrder.NONE, () -> {});
    assertEquals(1, bulkWakes.get());
    assertTrue(order.maySend("h", bulk, DestinationOrder.rank(2, false)));
  }

  @Test
  void aBetterPriorityOnBulkHoldsTheLaneBack() {
    DestinationOrder order = new DestinationOrder();
    order.update("h", bulk, DestinationOrder.rank(0, false), () -> {});
    assertFalse(order.maySend("h", lane, DestinationOrder.rank(1, true)));
    assertTrue(order.maySend("h", lane, DestinationOrder.rank(0, true)));
  }
}
