package org.coflow.core.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.coflow.core.model.PolicyType;
import org.junit.jupiter.api.Test;

class MergeAndSelectTest {
  static FlowDemand<String> f(String key, int src, int dst, double size, double rate, int order) {
    return new FlowDemand<>(key, src, dst, size, rate, order);
  }

  @Test
  void rateMergeSumsRatesAndSizesPerHostPair() {
    List<UnifiedFlow<String>> u =
        Merge.merge(
            List.of(f("a", 0, 1, 10, 3, 0), f("b", 0, 1, 20, 4, 5), f("c", 0, 2, 5, 1, 0)),
            PolicyType.RATE);
    assertEquals(2, u.size());
    assertEquals(7, u.get(0).rate());
    assertEquals(30, u.get(0).size());
    assertEquals(2, u.get(0).carried().size());
  }

  @Test
  void orderMergeCarriesOnlyTheMostImportantClass() {
    List<UnifiedFlow<String>> u =
        Merge.merge(
            List.of(
                f("low", 0, 1, 10, 0, 3),
                f("hi1", 0, 1, 20, 0, 1),
                f("hi2", 0, 1, 5, 0, 1),
                f("lower", 0, 1, 7, 0, 4)),
            PolicyType.ORDER);
    assertEquals(1, u.size());
    UnifiedFlow<String> one = u.get(0);
    assertEquals(1, one.order());
    assertEquals(25, one.size());
    assertEquals(List.of("hi1", "hi2"), keys(one.carried()));
    assertEquals(List.of("low", "lower"), keys(one.deferred()));
  }

  @Test
  void selectsTheMostImportantUnifiedFlowsUpToMaxNum() {
    List<FlowDemand<String>> d = new ArrayList<>();
    for (int src = 0; src < 5; src++) {
      d.add(f("s" + src, src, 9, 100, src + 1, 0));
    }
    List<Connection<String>> active =
        SelectAndSplit.select(Merge.merge(d, PolicyType.RATE), PolicyType.RATE, 3, 1);
    assertEquals(3, active.size());
    assertEquals(
        List.of(5.0, 4.0, 3.0),
        List.of(active.get(0).rate(), active.get(1).rate(), active.get(2).rate()));
  }

  @Test
  void receiversSpreadOverEqualPeersInsteadOfAllPickingTheSame() {
    // Receivers 1 and 2 each fetch equally from senders 0..5; with MaxNum 2 they pick the peers
    // right after themselves (cyclically), so no sender carries both receivers' connections.
    List<Integer> picked = new ArrayList<>();
    for (int dst : new int[] {1, 4}) {
      List<FlowDemand<String>> d = new ArrayList<>();
      for (int src = 0; src < 6; src++) {
        d.add(f("s" + src, src, dst, 100, 1, 0));
      }
      for (Connection<String> c :
          SelectAndSplit.select(Merge.merge(d, PolicyType.RATE), PolicyType.RATE, 2, 1000)) {
        picked.add(c.flow().src());
      }
    }
    assertEquals(List.of(2, 3, 5, 0), picked);
  }

  @Test
  void splitsTheMostImportantFlowAboveMinSize() {
    List<Connection<String>> active =
        SelectAndSplit.select(
            Merge.merge(
                List.of(
                    f("big", 0, 1, 64, 0, 0),
                    f("small", 2, 1, 3, 0, 0),
                    f("later", 3, 1, 100, 0, 2)),
                PolicyType.ORDER),
            PolicyType.ORDER,
            5,
            4);
    // Order class 0 first; "big" (64) is split into 32+32, then one 32 into 16+16.
    assertEquals(5, active.size());
    double bigTotal = 0;
    for (Connection<String> c : active) {
      if (c.flow().carried().get(0).key().equals("big")) {
        bigTotal += c.size();
      }
    }
    assertEquals(64, bigTotal, 1e-9);
    assertEquals(
        3, active.stream().filter(c -> c.flow().carried().get(0).key().equals("big")).count());
  }

  @Test
  void stopsWhenNothingCanBeSplitInsteadOfLoopingForever() {
    // The paper's loop never ends here: one flow, below MinSize, MaxNum 8.
    List<Connection<String>> active =
        SelectAndSplit.select(
            Merge.merge(List.of(f("tiny", 0, 1, 1, 1, 0)), PolicyType.RATE), PolicyType.RATE, 8, 4);
    assertEquals(1, active.size());
    assertEquals(
        0,
        SelectAndSplit.select(new ArrayList<UnifiedFlow<String>>(), PolicyType.RATE, 8, 4).size());
    assertThrows(
        IllegalArgumentException.class,
        () -> SelectAndSplit.select(new ArrayList<UnifiedFlow<String>>(), PolicyType.RATE, 0, 4));
    assertThrows(IllegalArgumentException.class, () -> f("neg", 0, 1, -1, 0, 0));
  }

  static List<String> keys(List<FlowDemand<String>> flows) {
    List<String> k = new ArrayList<>();
    flows.forEach(x -> k.add(x.key()));
    return k;
  }
}
