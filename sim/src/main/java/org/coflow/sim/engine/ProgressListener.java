package org.coflow.sim.engine;

/** Told how far the simulated clock has advanced, for a progress bar. */
@FunctionalInterface
public interface ProgressListener {
  ProgressListener NONE = (now, end, finished, total) -> {};

  /**
   * @param now simulated seconds
   * @param lastArrival simulated time of the last arrival (the clock usually ends a bit later)
   */
  void progress(double now, double lastArrival, int finished, int total);
}
