package org.coflow.courier.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReadyQueueTest {
  private static final int CHUNK = 64 << 10;

  /** A stream: its coflow, reader, priority, name and the bytes it has left to send. */
  static final class S {
    final String coflow;
    final String reader;
    final int priority;
    final String name;
    long left;
    long sent;

    S(String coflow, String reader, int priority, String name, long length) {
      this.coflow = coflow;
      this.reader = reader;
      this.priority = priority;
      this.name = name;
      this.left = length;
    }
  }

  private static ReadyQueue<S> queue() {
    return new ReadyQueue<>(s -> s.priority, s -> s.coflow, s -> s.reader, CHUNK, false);
  }

  /** A latency lane's queue: coflows of one priority least-served first. */
  private static ReadyQueue<S> laneQueue() {
    return new ReadyQueue<>(s -> s.priority, s -> s.coflow, s -> s.reader, CHUNK / 4, true);
  }

  /**
   * Sends {@code pieces} pieces as a serving connection does: a chunk (or a block's tail) of the
   * stream {@link ReadyQueue#next} names, charged with {@link ReadyQueue#sent}; a stream leaves the
   * queue when its block ends. Returns the name of each piece's stream.
   */
  private static List<String> send(ReadyQueue<S> q, int pieces) {
    return send(q, pieces, CHUNK);
  }

  /** As above, in pieces of at most {@code piece} bytes. */
  private static List<String> send(ReadyQueue<S> q, int pieces, int piece) {
    List<String> out = new ArrayList<>();
    long[] waited = new long[1];
    for (int i = 0; i < pieces && !q.isEmpty(); i++) {
      S s = q.next(x -> 0, waited);
      long n = Math.min(piece, s.left);
      s.left -= n;
      s.sent += n;
      q.sent(s, s.priority, n);
      if (s.left == 0) {
        q.remove(s, s.priority);
      }
      out.add(s.name);
    }
    return out;
  }

  @Test
  void coflowsOfOneClassShareBytesNotTurns() {
    ReadyQueue<S> q = queue();
    // A coflow of 2 KB blocks against one of large blocks sent in 64 KiB chunks: a turn per piece
    // would give the small coflow 2 KB per 64 KiB of the large one (1/32 of the bytes).
    List<S> small = new ArrayList<>();
    for (int i = 0; i < 4000; i++) {
      S s = new S("small", "r", 0, "s" + i, 2 << 10);
      small.add(s);
      q.add(s, false);
    }
    S big = new S("big", "r", 0, "big", 100L << 20);
    q.add(big, false);
    send(q, 600);
    long smallBytes = small.stream().mapToLong(s -> s.sent).sum();
    double share = (double) smallBytes / (smallBytes + big.sent);
    assertTrue(
        Math.abs(share - 0.5) < 0.02,
        "the 2 KB blocks' coflow should get half the bytes, got "
            + share
            + " ("
            + smallBytes
            + " against "
            + big.sent
            + ")");
  }

  @Test
  void aReadersBlocksGoWholeAndInOrder() {
    ReadyQueue<S> q = queue();
    // One coflow, one reader, three blocks of three chunks: never interleaved.
    for (String b : List.of("a", "b", "c")) {
      q.add(new S("c", "r", 0, b, 3L * CHUNK), false);
    }
    assertEquals(List.of("a", "a", "a", "b", "b", "b", "c", "c", "c"), send(q, 9));
  }

  @Test
  void readersOfACoflowTakeTurns() {
    ReadyQueue<S> q = queue();
    q.add(new S("c", "r1", 0, "r1a", 2L * CHUNK), false);
    q.add(new S("c", "r1", 0, "r1b", 2L * CHUNK), false);
    q.add(new S("c", "r2", 0, "r2a", 2L * CHUNK), false);
    // One reader per turn of the coflow (a turn: a chunk's worth of bytes).
    assertEquals(List.of("r1a", "r2a", "r1a", "r2a", "r1b", "r1b"), send(q, 6));
  }

  @Test
  void aResumedBlockGoesBackToTheFrontOfItsReader() {
    ReadyQueue<S> q = queue();
    S first = new S("c", "r", 0, "first", 3L * CHUNK);
    S second = new S("c", "r", 0, "second", CHUNK);
    q.add(first, false);
    q.add(second, false);
    assertEquals(List.of("first"), send(q, 1));
    q.remove(first, 0); // out of credit
    q.add(first, true); // credit came: it finishes before the reader's next block
    assertEquals(List.of("first", "first", "second"), send(q, 3));
  }

  @Test
  void aBetterPriorityGoesFirstAndRemovalMovesAStream() {
    ReadyQueue<S> q = queue();
    S low = new S("a", "r", 5, "low", 10L * CHUNK);
    S high = new S("b", "r", 0, "high", 10L * CHUNK);
    q.add(low, false);
    q.add(high, false);
    assertEquals(0, q.firstPriority());
    assertEquals(List.of("high", "high"), send(q, 2));
    q.remove(high, 0);
    assertEquals(5, q.firstPriority());
    assertEquals(List.of("low"), send(q, 1));
  }

  @Test
  void aPacedCoflowIsPassedOverAndItsWaitReported() {
    ReadyQueue<S> q = queue();
    q.add(new S("paced", "r", 0, "p", CHUNK), false);
    q.add(new S("free", "r", 1, "f", CHUNK), false);
    long[] waited = new long[1];
    S s = q.next(x -> x.coflow.equals("paced") ? 5_000 : 0, waited);
    assertEquals("f", s.name, "a worse priority goes while the better one is paced out");
    assertEquals(5_000, waited[0]);
    assertNull(q.next(x -> 7_000, waited));
    assertEquals(7_000, waited[0]);
    assertTrue(!q.isEmpty());
  }

  @Test
  void manyCoflowsShareEvenly() {
    ReadyQueue<S> q = queue();
    Map<String, Long> bytes = new HashMap<>();
    int[] sizes = {100, 3000, 20_000, CHUNK, 200_000};
    for (int c = 0; c < sizes.length; c++) {
      for (int i = 0; i < 10_000; i++) {
        q.add(new S("c" + c, "r", 0, "c" + c, sizes[c]), false);
      }
    }
    long[] waited = new long[1];
    for (int i = 0; i < 5000; i++) {
      S s = q.next(x -> 0, waited);
      long n = Math.min(CHUNK, s.left);
      s.left -= n;
      q.sent(s, 0, n);
      if (s.left == 0) {
        q.remove(s, 0);
      }
      bytes.merge(s.coflow, n, Long::sum);
    }
    long min = bytes.values().stream().mapToLong(Long::longValue).min().getAsLong();
    long max = bytes.values().stream().mapToLong(Long::longValue).max().getAsLong();
    assertTrue(max - min <= 2L * CHUNK, "coflows' bytes " + bytes + " differ by more than a turn");
  }

  @Test
  void aLaneServesTheLeastServedCoflowNext() {
    // Twenty coflows' first bytes already on the lane, each 128 KiB; then a small coflow's 2 KB
    // block arrives. In turn it would wait for the others' turns (20 x 16 KiB); least-served
    // first, it goes as soon as the piece under way is out.
    ReadyQueue<S> q = laneQueue();
    List<S> bulk = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      S s = new S("c" + i, "r", 0, "c" + i, 128 << 10);
      bulk.add(s);
      q.add(s, false);
    }
    sendLane(q, 25);
    S small = new S("small", "r", 0, "small", 2 << 10);
    q.add(small, false);
    assertEquals(List.of("small"), sendLane(q, 1));
    // The young coflows still share what is left: least-served evens them out.
    sendLane(q, 20 * 8 - 25 + 5);
    long min = bulk.stream().mapToLong(s -> s.sent).min().orElseThrow();
    long max = bulk.stream().mapToLong(s -> s.sent).max().orElseThrow();
    assertTrue(
        max - min <= CHUNK / 4,
        "least-served should keep them within a piece: " + min + ".." + max);
  }

  @Test
  void aLaneKeepsStrictPriorityAcrossClasses() {
    ReadyQueue<S> q = laneQueue();
    S low = new S("low", "r", 3, "low", 64 << 10);
    q.add(low, false);
    S high = new S("high", "r", 1, "high", 64 << 10);
    sendLane(q, 1);
    q.add(high, false);
    // The low class has sent more, but the high class goes first whatever it has been served.
    assertEquals(List.of("high", "high", "high", "high"), sendLane(q, 4));
  }

  /** As {@link #send}, in a lane's pieces (a quarter chunk). */
  private static List<String> sendLane(ReadyQueue<S> q, int pieces) {
    return send(q, pieces, CHUNK / 4);
  }
}
