package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

/**
 * A bit set over the positions of a coflow's active flows: the flows a step visits, in position
 * order, so that flows waiting at saturated ports cost a bit (or a word of 64), not a visit.
 *
 * <p>Not thread-safe: one set, reused from step to step.
 */
final class FlowMarks {
  private final int ports;
  private long[] marks = new long[64];
  private long markedSteps;
  private long allMarkedSteps;

  FlowMarks(int ports) {
    this.ports = ports;
  }

  /** How many steps found their flows through the receivers' lists (for tests). */
  long markedSteps() {
    return markedSteps;
  }

  /** How many steps marked all their coflow's flows (for tests). */
  long allMarkedSteps() {
    return allMarkedSteps;
  }

  /**
   * Active flows of {@code c} into receivers with capacity left and, if {@code byReceiver} is not
   * null, whose receiver {@code r} has {@code byReceiver[r] == cls}. Costs the coflow's receivers.
   */
  int flowsIntoFreeReceivers(Coflow c, double[] res, int[] byReceiver, int cls) {
    int flows = 0;
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (res[ports + p] > PortBudget.EPS && (byReceiver == null || byReceiver[p] == cls)) {
        flows += c.activeFlowsTo(p);
      }
    }
    return flows;
  }

  /**
   * Marks the positions of {@code c}'s active flows with capacity left at both ends (and, if {@code
   * byReceiver} is not null, a receiver {@code r} with {@code byReceiver[r] == cls}), visiting only
   * the flows into such receivers; returns the number of words in use. {@link #next} then lists
   * them in position order.
   */
  int markFree(Coflow c, double[] res, int[] byReceiver, int cls) {
    markedSteps++;
    int words = (c.activeCount() + 63) >>> 6;
    if (marks.length < words) {
      marks = new long[Math.max(words, 2 * marks.length)];
    }
    long[] bits = marks;
    Arrays.fill(bits, 0, words, 0L);
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      int count = c.activeFlowsTo(p);
      if (count > 0
          && res[ports + p] > PortBudget.EPS
          && (byReceiver == null || byReceiver[p] == cls)) {
        int[] positions = c.activePositionsTo(p);
        for (int j = 0; j < count; j++) {
          int k = positions[j];
          if (res[c.activeSrc(k)] > PortBudget.EPS) {
            bits[k >>> 6] |= 1L << k;
          }
        }
      }
    }
    return words;
  }

  /**
   * Marks the positions of all {@code c}'s active flows but those into receivers or out of senders
   * without capacity left; returns the number of words in use. Costs a word per 64 flows plus the
   * flows of saturated ports: {@link #markFree}'s complement.
   */
  int markAll(Coflow c, double[] res) {
    allMarkedSteps++;
    int n = c.activeCount();
    int words = (n + 63) >>> 6;
    if (marks.length < words) {
      marks = new long[Math.max(words, 2 * marks.length)];
    }
    Arrays.fill(marks, 0, words, -1L);
    if ((n & 63) != 0) {
      marks[words - 1] = (1L << n) - 1;
    }
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int p = c.receiver(rs);
      if (c.activeFlowsTo(p) > 0 && res[ports + p] <= PortBudget.EPS) {
        unmark(c.activePositionsTo(p), c.activeFlowsTo(p), -1);
      }
    }
    for (int ps = 0, pe = c.senderCount(); ps < pe; ps++) {
      int p = c.sender(ps);
      if (c.activeFlowsFrom(p) > 0 && res[p] <= PortBudget.EPS) {
        unmark(c.activePositionsFrom(p), c.activeFlowsFrom(p), -1);
      }
    }
    return words;
  }

  /**
   * Clears the marks of those of the first {@code count} {@code positions} (in increasing order)
   * after position {@code after}: the flows of a port saturated at {@code after}, which a scan in
   * position order has not reached yet. None of them can get anything any more, and a cleared word
   * is skipped 64 positions at a time instead of each of its flows being visited and found without
   * capacity.
   */
  void unmark(int[] positions, int count, int after) {
    long[] bits = marks;
    int from = Arrays.binarySearch(positions, 0, count, after);
    for (int j = from < 0 ? -from - 1 : from + 1; j < count; j++) {
      int k = positions[j];
      bits[k >>> 6] &= ~(1L << k);
    }
  }

  /** The first marked position at or after {@code from}, or {@link Integer#MAX_VALUE}. */
  int next(int from, int words) {
    int w = from >>> 6;
    if (w >= words) {
      return Integer.MAX_VALUE;
    }
    long b = marks[w] & (-1L << from);
    while (b == 0) {
      if (++w == words) {
        return Integer.MAX_VALUE;
      }
      b = marks[w];
    }
    return (w << 6) + Long.numberOfTrailingZeros(b);
  }
}
