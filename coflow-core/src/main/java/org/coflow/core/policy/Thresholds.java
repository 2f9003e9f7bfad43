package org.coflow.core.policy;

/**
 * An exponentially spaced ladder of byte thresholds, the multi-level feedback queue shape shared by
 * D-CLAS (Aalo, Graviton, CODA), Creek's levels and CODA's flow queues: level {@code i} holds what
 * has sent more than {@code first * mult^(i-1)} bytes and at most {@code first * mult^i}; the last
 * level is unbounded.
 */
final class Thresholds {
  private final double[] upper;

  Thresholds(int levels, double first, double multiplier) {
    if (levels < 1) {
      throw new IllegalArgumentException("need at least one level, got " + levels);
    }
    upper = new double[levels];
    for (int i = 0; i < levels; i++) {
      upper[i] = i == levels - 1 ? Double.POSITIVE_INFINITY : first * Math.pow(multiplier, i);
    }
  }

  int levels() {
    return upper.length;
  }

  /** The level of {@code bytes}: the number of thresholds strictly below it. */
  int level(double bytes) {
    int q = 0;
    while (q < upper.length - 1 && bytes > upper[q]) {
      q++;
    }
    return q;
  }

  /** Upper bound of a level (infinity for the last). */
  double upper(int level) {
    return upper[level];
  }

  boolean isLast(int level) {
    return level >= upper.length - 1;
  }

  /**
   * When bytes growing at {@code rate} from {@code bytes} first exceed their level's bound (just
   * past it, so that the strict comparison sees the new level), or infinity.
   */
  double crossing(double bytes, double rate, double now) {
    int q = level(bytes);
    if (isLast(q) || rate <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    return justPast(now, (upper[q] - bytes) / rate);
  }

  /** {@code now} plus {@code seconds} to a bound, taken just past it (see {@link #crossing}). */
  static double justPast(double now, double seconds) {
    return now + seconds * (1 + 1e-12) + 1e-9;
  }
}
