package org.coflow.testbed;

import java.util.List;
import java.util.Map;

/**
 * What one testbed run measured.
 *
 * @param cct per coflow of the workload (its order), seconds from its arrival to its last reducer's
 *     last byte; NaN if a reducer failed
 * @param counters per kernel counter ({@code RetransSegs}, {@code TCPTimeouts}, {@code rxBytes},
 *     ...), per host, the run's delta
 * @param connections the hosts' established data connections (those each host opened) every 100 ms:
 *     {@code [seconds since the first arrival, host 0, host 1, ...]}
 * @param agentMaxConnections per host, the most data connections its agent held (empty for the
 *     baseline)
 * @param agentBudgets per host, the agent's budget at the end (what adaptive MaxNum settled on)
 * @param corrupt reducers whose bytes did not match the map outputs' (count or CRC32)
 * @param failures reducers that failed, with their message
 */
public record RunResult(
    Setup setup,
    double[] cct,
    double wallSeconds,
    Map<String, long[]> counters,
    List<double[]> connections,
    int[] agentMaxConnections,
    int[] agentBudgets,
    int corrupt,
    List<String> failures) {

  /** A counter summed over the hosts (0 if no host reported it). */
  public long total(String counter) {
    long[] v = counters.get(counter);
    long sum = 0;
    if (v != null) {
      for (long x : v) {
        sum += x;
      }
    }
    return sum;
  }

  public double averageCct() {
    double sum = 0;
    for (double c : cct) {
      sum += c;
    }
    return sum / cct.length;
  }

  /** The most data connections one host held open at once, as the kernel counted them. */
  public int peakHostConnections() {
    int max = 0;
    for (double[] s : connections) {
      for (int h = 1; h < s.length; h++) {
        max = Math.max(max, (int) s[h]);
      }
    }
    return max;
  }

  /** The most data connections all hosts together held at once. */
  public int peakTotalConnections() {
    int max = 0;
    for (double[] s : connections) {
      int sum = 0;
      for (int h = 1; h < s.length; h++) {
        sum += (int) s[h];
      }
      max = Math.max(max, sum);
    }
    return max;
  }

  /** Whether every reducer got every byte intact. */
  public boolean intact() {
    return corrupt == 0 && failures.isEmpty();
  }
}
