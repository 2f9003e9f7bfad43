package org.coflow.core.policy;

import org.coflow.core.model.Coflow;

/**
 * Flow indices and rates gathered to be handed to {@link Schedule#addRates} at once, the way the
 * allocation steps give many flows their rates.
 */
final class RateHand {
  int[] flow = new int[64];
  double[] rate = new double[64];

  /** Makes {@link #flow} and {@link #rate} hold at least {@code n} entries. */
  void ensure(int n) {
    if (flow.length < n) {
      flow = new int[Math.max(n, 2 * flow.length)];
      rate = new double[flow.length];
    }
  }

  /**
   * Gives the flows at {@code positions[0 .. n)} of the coflow's active flows their {@code rates},
   * in that order, through {@link Schedule#addRates}.
   */
  void rateByPosition(Coflow c, int[] positions, double[] rates, int n, Schedule schedule) {
    if (n <= 8) {
      // Small steps (Sincronia's greedy ones) keep the calls flow by flow: handed over at once,
      // they made Sincronia's whole trace slower (10.3 s against 9.0 s, 5 runs each).
      for (int j = 0; j < n; j++) {
        schedule.addRate(c.activeIndex(positions[j]), rates[j]);
      }
      return;
    }
    ensure(n);
    for (int j = 0; j < n; j++) {
      flow[j] = c.activeIndex(positions[j]);
    }
    schedule.addRates(flow, rates, n);
  }
}
