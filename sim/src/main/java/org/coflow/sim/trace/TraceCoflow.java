package org.coflow.sim.trace;

/**
 * One coflow line of the coflow-benchmark format: mapper ports, and per reducer its port and the
 * megabytes (2^20 bytes) it receives, split evenly over the mappers.
 *
 * @param line the 1-based line of the trace file it came from
 */
public record TraceCoflow(
    int id, long arrivalMs, int[] mappers, int[] reducers, double[] reducerMb, int line) {

  /** Bytes of the flow from any mapper to reducer {@code r}. */
  public double flowBytes(int r) {
    return reducerMb[r] * Trace.MB / mappers.length;
  }

  public int flowCount() {
    return mappers.length * reducers.length;
  }

  public double totalBytes() {
    double sum = 0;
    for (double mb : reducerMb) {
      sum += mb * Trace.MB;
    }
    return sum;
  }
}
