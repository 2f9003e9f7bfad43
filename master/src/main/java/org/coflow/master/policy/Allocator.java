package org.coflow.master.policy;

import java.util.List;
import org.coflow.api.model.Flow;

/**
 * The rate allocation steps policies are built from. Each takes capacity from a {@link PortBudget}
 * and adds rates to a {@link Schedule}; none allocates more than the budget holds.
 *
 * <p>Not thread-safe: an instance keeps scratch arrays sized to the fabric, so every policy owns
 * one.
 */
public final class Allocator {
  private final int ports;
  private final int[] count;
  private final int[] start;
  private final int[] members;
  private final int[] touched;
  private final boolean[] isTouched;
  private final double[] load;
  private int[] list = new int[1024];
  private boolean[] frozen = new boolean[1024];

  public Allocator(int ports) {
    this.ports = ports;
    this.count = new int[2 * ports];
    this.start = new int[2 * ports + 1];
    this.members = new int[2 * ports];
    this.touched = new int[2 * ports];
    this.isTouched = new boolean[2 * ports];
    this.load = new double[2 * ports];
  }

  public int ports() {
    return ports;
  }

  /**
   * Per-flow max-min fair sharing of the budget among {@code flows} (true water-filling over sender
   * and receiver ports): all flows rise together; when a port saturates, its flows freeze at the
   * current level and the others keep rising. The result is work-conserving for these flows.
   */
  public void maxMinFair(List<Flow> flows, PortBudget budget, Schedule schedule) {
    int n = flows.size();
    if (n == 0) {
      return;
    }
    if (list.length < 2 * n) {
      list = new int[2 * n];
      frozen = new boolean[n];
    }
    int t = 0;
    for (int i = 0; i < n; i++) {
      Flow f = flows.get(i);
      t = touch(f.src(), t);
      t = touch(ports + f.dst(), t);
      count[f.src()]++;
      count[ports + f.dst()]++;
      frozen[i] = false;
    }
    // Counting sort of flow positions by resource: list[start[r] .. start[r+1]) are r's flows.
    int pos = 0;
    for (int k = 0; k < t; k++) {
      int r = touched[k];
      start[r] = pos;
      members[r] = pos;
      pos += count[r];
    }
    for (int i = 0; i < n; i++) {
      Flow f = flows.get(i);
      list[members[f.src()]++] = i;
      list[members[ports + f.dst()]++] = i;
    }
    double[] residual = budget.residual;
    double level = 0;
    while (true) {
      double step = Double.POSITIVE_INFINITY;
      int argmin = -1;
      for (int k = 0; k < t; k++) {
        int r = touched[k];
        if (count[r] > 0) {
          double s = Math.max(0, residual[r]) / count[r];
          if (s < step) {
            step = s;
            argmin = r;
          }
        }
      }
      if (argmin < 0) {
        break;
      }
      level += step;
      for (int k = 0; k < t; k++) {
        int r = touched[k];
        if (count[r] > 0) {
          residual[r] -= step * count[r];
        }
      }
      residual[argmin] = 0;
      for (int k = 0; k < t; k++) {
        int r = touched[k];
        if (count[r] > 0 && residual[r] <= PortBudget.EPS) {
          residual[r] = Math.max(0, residual[r]);
          for (int j = start[r], end = members[r]; j < end; j++) {
            int i = list[j];
            if (!frozen[i]) {
              frozen[i] = true;
              Flow f = flows.get(i);
              schedule.addRate(f.index(), level);
              count[f.src()]--;
              count[ports + f.dst()]--;
            }
          }
        }
      }
    }
    untouch(t);
  }

  /**
   * Strict priority per flow: in the given order, each flow takes everything both of its ports
   * still have (Sincronia's greedy allocation; also the shape of the shared backfill).
   */
  public void greedy(List<Flow> flowsInOrder, PortBudget budget, Schedule schedule) {
    for (int i = 0, n = flowsInOrder.size(); i < n; i++) {
      Flow f = flowsInOrder.get(i);
      double r = budget.available(f.src(), f.dst());
      if (r > PortBudget.EPS) {
        schedule.addRate(f.index(), r);
        budget.take(f.src(), f.dst(), r);
      }
    }
  }

  /**
   * Varys' MADD for one coflow: the coflow's effective bottleneck Γ on the residual capacity, then
   * each flow gets remaining/Γ so that all its flows finish together at Γ. Needs known sizes.
   *
   * @return Γ in seconds, or infinity (nothing allocated) if a port the coflow needs is saturated
   */
  public double madd(List<Flow> activeFlows, PortBudget budget, Schedule schedule) {
    double gamma = bottleneck(activeFlows, budget.residual);
    if (gamma == Double.POSITIVE_INFINITY || gamma <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    for (int i = 0, n = activeFlows.size(); i < n; i++) {
      Flow f = activeFlows.get(i);
      double r = f.remaining() / gamma;
      schedule.addRate(f.index(), r);
      budget.take(f.src(), f.dst(), r);
    }
    return gamma;
  }

  /**
   * Effective bottleneck Γ of a set of flows of known size against the given per-resource
   * capacities: max over ports of (bytes through the port / capacity). Infinity if a needed port
   * has no capacity.
   */
  public double bottleneck(List<Flow> activeFlows, double[] capacity) {
    int t = 0;
    for (int i = 0, n = activeFlows.size(); i < n; i++) {
      Flow f = activeFlows.get(i);
      double rem = f.remaining();
      t = touch(f.src(), t);
      t = touch(ports + f.dst(), t);
      load[f.src()] += rem;
      load[ports + f.dst()] += rem;
    }
    double gamma = 0;
    for (int k = 0; k < t; k++) {
      int r = touched[k];
      if (load[r] > 0) {
        gamma = capacity[r] <= PortBudget.EPS
            ? Double.POSITIVE_INFINITY
            : Math.max(gamma, load[r] / capacity[r]);
      }
      load[r] = 0;
    }
    untouch(t);
    return gamma;
  }

  private int touch(int r, int t) {
    if (!isTouched[r]) {
      isTouched[r] = true;
      touched[t++] = r;
    }
    return t;
  }

  private void untouch(int t) {
    for (int k = 0; k < t; k++) {
      int r = touched[k];
      isTouched[r] = false;
      count[r] = 0;
    }
  }
}
