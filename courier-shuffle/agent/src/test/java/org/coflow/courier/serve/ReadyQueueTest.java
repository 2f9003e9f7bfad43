package org.coflow.courier.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadyQueueTest {
  /** A stream: its coflow, priority and name. */
  static final class S {
    final String coflow;
    final int priority;
    final String name;

    S(String coflow, int priority, String name) {
      this.coflow = coflow;
      this.priority = priority;
      this.name = name;
    }

    String coflow() {
      return coflow;
    }

    int priority() {
      return priority;
    }

    String name() {
      return name;
    }
  }

  private static ReadyQueue<S> queue() {
    return new ReadyQueue<>(S::priority, S::coflow);
  }

  /** Sends {@code chunks} chunks, each stream going back in line after its chunk. */
  private static List<String> turns(ReadyQueue<S> q, int chunks) {
    List<String> out = new ArrayList<>();
    long[] waited = new long[1];
    for (int i = 0; i < chunks; i++) {
      S s = q.next(x -> 0, waited);
      out.add(s.name());
      q.add(s);
    }
    return out;
  }

  @Test
  void coflowsTakeTurnsWhateverTheirNumberOfStreams() {
    ReadyQueue<S> q = queue();
    q.add(new S("wide", 0, "w1"));
    q.add(new S("wide", 0, "w2"));
    q.add(new S("wide", 0, "w3"));
    q.add(new S("small", 0, "s1"));
    // Per block, the small coflow would get one chunk in four; per coflow, one in two.
    assertEquals(List.of("w1", "s1", "w2", "s1", "w3", "s1", "w1", "s1"), turns(q, 8));
  }

  @Test
  void aBetterPriorityGoesFirstAndRemovalMovesAStream() {
    ReadyQueue<S> q = queue();
    S low = new S("a", 5, "low");
    S high = new S("b", 0, "high");
    q.add(low);
    q.add(high);
    assertEquals(0, q.firstPriority());
    assertEquals(List.of("high", "high"), turns(q, 2));
    q.remove(high, 0);
    assertEquals(5, q.firstPriority());
    assertEquals(List.of("low"), turns(q, 1));
  }

  @Test
  void aPacedCoflowIsPassedOverAndItsWaitReported() {
    ReadyQueue<S> q = queue();
    q.add(new S("paced", 0, "p"));
    q.add(new S("free", 1, "f"));
    long[] waited = new long[1];
    S s = q.next(x -> x.coflow().equals("paced") ? 5_000 : 0, waited);
    assertEquals("f", s.name(), "a worse priority goes while the better one is paced out");
    assertEquals(5_000, waited[0]);
    assertNull(q.next(x -> 7_000, waited));
    assertEquals(7_000, waited[0]);
    assertTrue(!q.isEmpty());
  }
}
