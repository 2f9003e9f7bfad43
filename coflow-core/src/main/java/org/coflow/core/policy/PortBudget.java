package org.coflow.core.policy;

import org.coflow.core.model.Fabric;

/**
 * Residual capacity of every port during one allocation: resource {@code p} is port {@code p}'s
 * uplink, resource {@code ports + p} its downlink. Allocation steps take capacity from it in
 * priority order; whatever is left goes to the {@link Backfill}.
 */
public final class PortBudget {
  /** Residuals at or below this many bytes/s count as saturated (floating-point noise). */
  static final double EPS = 1e-3;

  private final int ports;
  final double[] residual;

  public PortBudget(Fabric fabric) {
    this.ports = fabric.size();
    this.residual = new double[2 * ports];
    reset(fabric);
  }

  /** Restores full capacity on every port. */
  public void reset(Fabric fabric) {
    for (int p = 0; p < ports; p++) {
      residual[p] = fabric.uplink(p);
      residual[ports + p] = fabric.downlink(p);
    }
  }

  public int ports() {
    return ports;
  }

  public double up(int port) {
    return residual[port];
  }

  public double down(int port) {
    return residual[ports + port];
  }

  /** Capacity still available to a flow from {@code src} to {@code dst}. */
  public double available(int src, int dst) {
    return Math.min(residual[src], residual[ports + dst]);
  }

  /** Takes {@code rate} from both ends of a flow. */
  public void take(int src, int dst, double rate) {
    residual[src] = Math.max(0, residual[src] - rate);
    residual[ports + dst] = Math.max(0, residual[ports + dst] - rate);
  }

  /** Scales a port's remaining capacity, used to give a weighted share of it to one queue. */
  void setResiduals(double[] values) {
    System.arraycopy(values, 0, residual, 0, residual.length);
  }

  double[] copyResiduals() {
    return residual.clone();
  }
}
