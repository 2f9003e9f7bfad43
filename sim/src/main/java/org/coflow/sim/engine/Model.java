package org.coflow.sim.engine;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Modelling choices of a simulation run: ours by default, or some or all of those of the public
 * reference simulator coflowsim (github.com/coflow/coflowsim), to compare results with it and to
 * find which choice moves a result.
 *
 * <p>coflowsim's choices, each one a {@link Choice}:
 *
 * <ul>
 *   <li>{@link Choice#BATCH}: coflows are admitted on a 10.24 s grid: every coflow arriving in (T,
 *       T + 10.24 s] starts at T, and its CCT counts from T.
 *   <li>{@link Choice#UNITS}: a port moves 128 MiB per 1,024 time units and trace milliseconds are
 *       time units, so ports run at 131,072,000 bytes/s against our 1 Gbit/s = 125,000,000.
 *   <li>{@link Choice#FAIR}: per-flow fair sharing is min(C / flows at the sender, C / flows at the
 *       receiver), not water-filled: capacity one end cannot use stays idle ({@link
 *       CoflowsimFair}).
 *   <li>{@link Choice#DCLAS}: Aalo's D-CLAS as coflowsim's DARK: a coflow's queue from its live
 *       bytes sent, FIFO by the time it entered its queue, inside a coflow one equal split of what
 *       its ports have left, and no backfill ({@link CoflowsimDark}).
 *   <li>{@link Choice#EVENTS}: coordinated policies (everything but fair sharing) decide only when
 *       coflows are admitted or finish; a flow that finishes leaves its capacity idle until then,
 *       and queue thresholds are acted on only then.
 *   <li>{@link Choice#QUANTA}: a coflow's finish is rounded up to the end of coflowsim's 8 ms
 *       quantum.
 * </ul>
 */
public record Model(Set<Choice> choices) {

  /** One of coflowsim's modelling choices. */
  public enum Choice {
    BATCH,
    UNITS,
    FAIR,
    DCLAS,
    EVENTS,
    QUANTA;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Our model: exact arrivals, water-filled fair sharing, decisions at every event. */
  public static final Model DEFAULT = new Model(EnumSet.noneOf(Choice.class));

  /** Every choice of coflowsim. */
  public static final Model COFLOWSIM = new Model(EnumSet.allOf(Choice.class));

  /** coflowsim's admission grid, milliseconds. */
  public static final long EPOCH_MS = 10_240;

  /** coflowsim's simulation quantum, seconds. */
  public static final double QUANTUM_SECONDS = 0.008;

  /** coflowsim's port capacity in bytes/s (128 MiB per 1,024 ms). */
  public static final double COFLOWSIM_BYTES_PER_SECOND = 131_072_000;

  public Model {
    choices =
        Collections.unmodifiableSet(
            choices.isEmpty() ? EnumSet.noneOf(Choice.class) : EnumSet.copyOf(choices));
  }

  /**
   * {@code default}, {@code coflowsim}, or a comma-separated list of choices ({@code
   * batch,units,fair,dclas,events,quanta}).
   *
   * @throws IllegalArgumentException naming the bad value and the valid ones
   */
  public static Model parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("default")) {
      return DEFAULT;
    }
    if (t.equals("coflowsim")) {
      return COFLOWSIM;
    }
    EnumSet<Choice> set = EnumSet.noneOf(Choice.class);
    for (String part : t.split(",")) {
      String p = part.trim();
      boolean found = false;
      for (Choice c : Choice.values()) {
        if (c.label().equals(p)) {
          set.add(c);
          found = true;
        }
      }
      if (!found) {
        throw new IllegalArgumentException(
            "unknown model '"
                + part.trim()
                + "'; use default, coflowsim, or a comma-separated list of"
                + " batch, units, fair, dclas, events, quanta");
      }
    }
    return new Model(set);
  }

  public boolean has(Choice c) {
    return choices.contains(c);
  }

  public boolean isDefault() {
    return choices.isEmpty();
  }

  /**
   * When a coflow arriving at {@code arrivalMs} (trace milliseconds) is admitted, in seconds. Under
   * {@link Choice#BATCH} the grid is computed in whole milliseconds, so an arrival exactly on a
   * grid line belongs to the epoch it ends, as in coflowsim.
   */
  public double admission(long arrivalMs) {
    if (!has(Choice.BATCH) || arrivalMs <= 0) {
      return Math.max(0, arrivalMs) / 1000.0;
    }
    return (arrivalMs - 1) / EPOCH_MS * EPOCH_MS / 1000.0;
  }

  /**
   * The completion time recorded for a coflow admitted at {@code admitted} that finished at {@code
   * finished} (seconds): under {@link Choice#QUANTA} the finish is rounded up to the end of its 8
   * ms quantum, as coflowsim's clock does.
   */
  public double recorded(double admitted, double finished) {
    if (!has(Choice.QUANTA)) {
      return finished - admitted;
    }
    return Math.ceil(finished / QUANTUM_SECONDS - 1e-9) * QUANTUM_SECONDS - admitted;
  }

  /** How the model is named on the command line. */
  public String label() {
    if (isDefault()) {
      return "default";
    }
    if (choices.equals(COFLOWSIM.choices)) {
      return "coflowsim";
    }
    StringBuilder b = new StringBuilder();
    for (Choice c : choices) {
      b.append(b.length() == 0 ? "" : ",").append(c.label());
    }
    return b.toString();
  }
}
