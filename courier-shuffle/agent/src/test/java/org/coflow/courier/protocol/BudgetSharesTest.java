package org.coflow.courier.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BudgetSharesTest {
  @Test
  void aLoneHolderGetsHalfAndEachNewcomerFindsRoom() {
    BudgetShares shares = new BudgetShares(new MemoryBudget(1200));
    BudgetShares.Holder a = shares.join("a");
    assertEquals(600, a.tryReserveUpTo(10_000), "alone: half, the other half kept for others");
    assertFalse(a.tryReserve(1));
    BudgetShares.Holder b = shares.join("b");
    assertEquals(400, b.tryReserveUpTo(10_000), "two holders: a third each, a third kept");
    BudgetShares.Holder c = shares.join("c");
    assertEquals(200, c.tryReserveUpTo(10_000), "what is left, within its quarter");
    assertEquals(3, shares.holding());
    assertEquals(1200, shares.budget().used());

    a.release(600);
    assertEquals(2, shares.holding());
    assertEquals(300, a.tryReserveUpTo(10_000), "a newcomer again among two holders: a quarter");
  }

  @Test
  void aRetryWaitsWhileItsShareIsFullAndRunsWhenBytesComeBack() {
    BudgetShares shares = new BudgetShares(new MemoryBudget(1000));
    BudgetShares.Holder a = shares.join("a");
    assertEquals(500, a.tryReserveUpTo(1000));
    AtomicInteger runs = new AtomicInteger();
    // The budget has room, but not this holder's share: the retry waits rather than spin.
    a.whenFreed(runs::incrementAndGet);
    assertEquals(0, runs.get());
    a.release(100);
    assertEquals(1, runs.get());
    // With room in the share, a retry runs at once.
    a.whenFreed(runs::incrementAndGet);
    assertEquals(2, runs.get());
  }

  @Test
  void anIdentityIsForgottenOnceItsSessionsEndedAndItsBytesCameBack() {
    BudgetShares shares = new BudgetShares(new MemoryBudget(1000));
    BudgetShares.Holder a = shares.join("a");
    BudgetShares.Holder again = shares.join("a");
    assertTrue(a == again, "one share per identity, whatever its connections");
    assertEquals(500, a.tryReserveUpTo(700));
    a.close();
    again.close();
    assertEquals(1, shares.tracked(), "still holds bytes its connections left behind");
    a.release(500);
    assertEquals(0, shares.tracked());
    assertEquals(0, shares.budget().used());
  }
}
