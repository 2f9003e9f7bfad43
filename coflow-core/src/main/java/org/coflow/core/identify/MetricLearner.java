package org.coflow.core.identify;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Learns CODA's diagonal metric from labelled flows (seed 002 §3.2; the objective of Xing et al.,
 * 2002, diagonal case): minimise {@code g(a) = Σ_S ||fi−fj||²_a − log Σ_D ||fi−fj||_a} over weights
 * {@code a ≥ 0}, S being same-coflow pairs and D different-coflow pairs, by Newton–Raphson steps
 * projected onto {@code a ≥ 0} with a backtracking line search. Spark and Hadoop get a weight
 * vector each (a pair of one of each never shares a coflow, so it teaches nothing).
 *
 * <p>Decisions where the paper is silent:
 *
 * <ul>
 *   <li>A pair's features are (ΔS², Dcom, Dprt) with ΔS in seconds, so {@code ||·||²_a = a·x}.
 *   <li>Pairs are sampled: up to {@code pairs} of each kind, different-coflow pairs only among
 *       flows starting within {@code window} seconds of each other (pairs far apart in time are
 *       told apart by any weight, and would swamp the sum).
 *   <li>The objective fixes the weights only up to how it trades S against D; the learned vector is
 *       rescaled so that its start-time weight equals the paper's for that framework, which keeps ε
 *       on the same scale (seconds). What is learned is the weights relative to time.
 * </ul>
 */
public final class MetricLearner {
  private MetricLearner() {}

  /** A labelled flow. */
  public static final class Labelled {
    private final FlowPoint flow;
    private final String coflow;

    public Labelled(FlowPoint flow, String coflow) {
      this.flow = flow;
      this.coflow = coflow;
    }

    public FlowPoint flow() {
      return flow;
    }

    public String coflow() {
      return coflow;
    }

    @Override
    public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof Labelled)) {
        return false;
      }
      Labelled x = (Labelled) o;
      return java.util.Objects.equals(flow, x.flow) && java.util.Objects.equals(coflow, x.coflow);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(flow, coflow);
    }

    @Override
    public String toString() {
      return "Labelled[flow=" + flow + ", coflow=" + coflow + "]";
    }
  }

  /** Learns both frameworks' weights from {@code flows} (sorted by start time or not). */
  public static CodaMetric learn(List<Labelled> flows, int pairs, double window, long seed) {
    double[] spark = learnOne(flows, false, pairs, window, seed, 3.825);
    double[] hadoop = learnOne(flows, true, pairs, window, seed + 1, 3.472);
    return new CodaMetric(spark[0], spark[1], spark[2], hadoop[0], hadoop[1], hadoop[2]);
  }

  private static double[] learnOne(
      List<Labelled> all, boolean hadoop, int pairs, double window, long seed, double timeWeight) {
    List<Labelled> flows = new ArrayList<>();
    for (Labelled l : all) {
      if (l.flow().hadoop() == hadoop) {
        flows.add(l);
      }
    }
    flows.sort((x, y) -> Double.compare(x.flow().startSec(), y.flow().startSec()));
    List<double[]> same = new ArrayList<>();
    List<double[]> diff = new ArrayList<>();
    Random r = new Random(seed);
    int n = flows.size();
    for (int tries = 0;
        n > 1 && tries < pairs * 20 && (same.size() < pairs || diff.size() < pairs);
        tries++) {
      int i = r.nextInt(n);
      // A partner nearby in start time (within the window), found by a short random walk.
      int j = Math.min(n - 1, i + 1 + r.nextInt(Math.max(1, Math.min(200, n - i - 1))));
      if (j == i) {
        continue;
      }
      FlowPoint a = flows.get(i).flow();
      FlowPoint b = flows.get(j).flow();
      if (b.startSec() - a.startSec() > window) {
        continue;
      }
      double dt = a.startSec() - b.startSec();
      double[] x = {
        dt * dt,
        a.community() == b.community() ? 0 : 1,
        a.dst() == b.dst() && a.dstPort() == b.dstPort() ? 0 : 1
      };
      if (flows.get(i).coflow().equals(flows.get(j).coflow())) {
        if (same.size() < pairs) {
          same.add(x);
        }
      } else if (diff.size() < pairs) {
        diff.add(x);
      }
    }
    if (same.isEmpty() || diff.isEmpty()) {
      // Nothing to learn from: the paper's weights.
      return hadoop ? new double[] {3.472, 3.207, 0} : new double[] {3.825, 5.431, 0.217};
    }
    double[] a = solve(same, diff);
    double scale = a[0] > 0 ? timeWeight / a[0] : 1;
    double[] paper = hadoop ? new double[] {3.472, 3.207, 0} : new double[] {3.825, 5.431, 0.217};
    double[] out = {timeWeight, a[1] * scale, a[2] * scale};
    // A feature that never differs within the sampled pairs (one community only, say) carries no
    // information: its weight would be its starting value; keep the paper's instead.
    for (int k = 1; k < 3; k++) {
      boolean seen = false;
      for (List<double[]> ps : List.of(same, diff)) {
        for (double[] x : ps) {
          seen |= x[k] != 0;
        }
      }
      if (!seen) {
        out[k] = paper[k];
      }
    }
    return out;
  }

  /** Projected Newton–Raphson on g(a) = a·s − log Σ_D sqrt(a·x). */
  static double[] solve(List<double[]> same, List<double[]> diff) {
    int d = 3;
    double[] s = new double[d];
    for (double[] x : same) {
      for (int k = 0; k < d; k++) {
        s[k] += x[k];
      }
    }
    double[] a = {1, 1, 1};
    for (int iter = 0; iter < 100; iter++) {
      double sum = 0;
      double[] gs = new double[d];
      double[][] hs = new double[d][d];
      for (double[] x : diff) {
        double q = Math.max(1e-12, dot(a, x));
        double root = Math.sqrt(q);
        sum += root;
        for (int k = 0; k < d; k++) {
          gs[k] += x[k] / (2 * root);
          for (int l = 0; l < d; l++) {
            hs[k][l] -= x[k] * x[l] / (4 * q * root);
          }
        }
      }
      double[] grad = new double[d];
      double[][] hess = new double[d][d];
      for (int k = 0; k < d; k++) {
        grad[k] = s[k] - gs[k] / sum;
        for (int l = 0; l < d; l++) {
          hess[k][l] = -(hs[k][l] / sum - gs[k] * gs[l] / (sum * sum));
        }
        hess[k][k] += 1e-9;
      }
      double[] step = solve3(hess, grad);
      if (step == null || dot(step, grad) <= 0) {
        step = grad; // not a descent direction: fall back to the gradient
      }
      double g0 = objective(a, s, diff);
      double t = 1;
      double[] next = a;
      for (int ls = 0; ls < 40; ls++, t /= 2) {
        double[] c = new double[d];
        for (int k = 0; k < d; k++) {
          c[k] = Math.max(0, a[k] - t * step[k]);
        }
        if (objective(c, s, diff) < g0) {
          next = c;
          break;
        }
      }
      double moved = 0;
      for (int k = 0; k < d; k++) {
        moved = Math.max(moved, Math.abs(next[k] - a[k]));
      }
      a = next;
      if (moved < 1e-10) {
        break;
      }
    }
    return a;
  }

  static double objective(double[] a, double[] s, List<double[]> diff) {
    double sum = 0;
    for (double[] x : diff) {
      sum += Math.sqrt(Math.max(0, dot(a, x)));
    }
    return sum <= 0 ? Double.POSITIVE_INFINITY : dot(a, s) - Math.log(sum);
  }

  private static double dot(double[] a, double[] b) {
    double r = 0;
    for (int k = 0; k < a.length; k++) {
      r += a[k] * b[k];
    }
    return r;
  }

  /** Solves H·x = g for a 3×3 H (Cramer's rule); null if singular. */
  private static double[] solve3(double[][] h, double[] g) {
    double det = det(h);
    if (Math.abs(det) < 1e-300) {
      return null;
    }
    double[] x = new double[3];
    for (int c = 0; c < 3; c++) {
      double[][] m = new double[3][3];
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          m[i][j] = j == c ? g[i] : h[i][j];
        }
      }
      x[c] = det(m) / det;
    }
    return x;
  }

  private static double det(double[][] m) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  }
}
