package org.coflow.courier.adapt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdaptiveMaxNumTest {
  private static AdaptiveMaxNum.Sample s(double goodput, double loss, boolean binds) {
    return new AdaptiveMaxNum.Sample(goodput, loss, binds);
  }

  @Test
  void lossHalvesTheBudgetAndHoldsGrowth() {
    AdaptiveMaxNum a = new AdaptiveMaxNum(8, 32, 0.01);
    assertEquals(4, a.next(s(1e6, 0.05, true)));
    assertEquals(2, a.next(s(1e6, 0.05, true)));
    assertEquals(1, a.next(s(1e6, 0.05, true)));
    assertEquals(1, a.next(s(1e6, 0.5, true)), "never below 1");
    // Two quiet intervals of hold after the last halving, then growth resumes.
    assertEquals(1, a.next(s(1e6, 0, true)));
    assertEquals(1, a.next(s(1e6, 0, true)));
    assertEquals(2, a.next(s(1e6, 0, true)));
  }

  @Test
  void growsByOneWhileTheBudgetBindsAndLossIsLow() {
    AdaptiveMaxNum a = new AdaptiveMaxNum(2, 4, 0.01);
    assertEquals(3, a.next(s(1e6, 0, true)));
    assertEquals(4, a.next(s(1e6, 0, true)));
    assertEquals(4, a.next(s(1e6, 0, true)), "not above max");
    AdaptiveMaxNum idle = new AdaptiveMaxNum(2, 4, 0.01);
    assertEquals(2, idle.next(s(1e6, 0, false)), "no growth while nothing waits");
    assertEquals(2, idle.next(s(0, Double.NaN, false)), "nothing seen, nothing changed");
    AdaptiveMaxNum lossy = new AdaptiveMaxNum(2, 4, 0.01);
    assertEquals(2, lossy.next(s(1e6, 0.005, true)), "no growth with loss near the threshold");
  }

  @Test
  void anIncreaseThatCostGoodputIsTakenBack() {
    AdaptiveMaxNum a = new AdaptiveMaxNum(4, 32, 0.01);
    assertEquals(5, a.next(s(10e6, 0, true)));
    assertEquals(4, a.next(s(7e6, 0, true)), "goodput fell 30% after the increase");
    for (int i = 0; i < AdaptiveMaxNum.HOLD_AFTER_REVERT; i++) {
      assertEquals(4, a.next(s(10e6, 0, true)), "held after the revert");
    }
    assertEquals(5, a.next(s(10e6, 0, true)));
    assertEquals(6, a.next(s(9.5e6, 0, true)), "a small dip is noise, not harm");
  }

  @Test
  void withoutKernelCountersGoodputAloneDecides() {
    AdaptiveMaxNum a = new AdaptiveMaxNum(4, 32, 0.01);
    assertEquals(5, a.next(s(10e6, Double.NaN, true)));
    assertEquals(4, a.next(s(5e6, Double.NaN, true)));
  }

  @Test
  void parsesTheKernelsCounterTables() {
    Map<String, Long> out = new HashMap<>();
    TcpCounters.parse(
        List.of(
            "Ip: Forwarding DefaultTTL",
            "Ip: 1 64",
            "Tcp: RtoAlgorithm RtoMin InSegs OutSegs RetransSegs",
            "Tcp: 1 200 804 476 7"),
        "Tcp:",
        out);
    TcpCounters.parse(
        List.of("TcpExt: SyncookiesSent TCPTimeouts TCPOFOQueue", "TcpExt: 0 3 12"),
        "TcpExt:",
        out);
    assertEquals(7L, out.get("RetransSegs"));
    assertEquals(804L, out.get("InSegs"));
    assertEquals(3L, out.get("TCPTimeouts"));
    assertEquals(12L, out.get("TCPOFOQueue"));
    assertEquals(null, out.get("Forwarding"), "only the tagged table");
  }
}
