package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.IntToDoubleFunction;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;

/** A scripted fluid replay for policy tests that run two policy variants side by side. */
final class FluidScript {
  private FluidScript() {}

  /**
   * Admits coflow {@code n}: 2 + n % 4 mappers and 2 + n % 3 reducers on a 6-port fabric, flows of
   * 500 to 500 + {@code spread} bytes (the same sizes for the same n).
   */
  static Coflow admit(ClusterState state, int n, double now, int spread) {
    Random random = new Random(n);
    Coflow c = new Coflow("c" + n, n, now, 1);
    state.addCoflow(c);
    int mappers = 2 + n % 4;
    int reducers = 2 + n % 3;
    for (int r = 0; r < reducers; r++) {
      for (int m = 0; m < mappers; m++) {
        state.addFlow(c, m, 5 - r, 500 + random.nextInt(spread), now);
      }
    }
    return c;
  }

  /**
   * Moves every flow at its rate in {@code s} for {@code dt}; those done finish at {@code then}.
   */
  static void advance(ClusterState state, Schedule s, double dt, double then) {
    advance(state, s::rate, dt, then);
  }

  /** {@link #advance} of flows moving at {@code rate} of their index. */
  static void advance(ClusterState state, IntToDoubleFunction rate, double dt, double then) {
    List<Flow> done = new ArrayList<>();
    for (Flow f : state.flows()) {
      double moved = rate.applyAsDouble(f.index()) * dt;
      if (moved <= 0) {
        continue;
      }
      if (f.remaining() - moved <= 1e-6) {
        state.addSent(f, f.remaining());
        done.add(f);
      } else {
        state.addSent(f, moved);
      }
    }
    done.sort(Comparator.comparingLong(Flow::id));
    for (Flow f : done) {
      state.finishFlow(f, then);
    }
  }

  /**
   * As in the live master: the fabric grows from 6 to 8 ports of {@code capacity} under running
   * coflow {@code c}, which gains 8 flows into the new port 7.
   */
  static void growUnder(ClusterState state, Coflow c, double capacity, double now) {
    state.setFabric(Fabric.uniform(8, capacity));
    for (int m = 0; m < 8; m++) {
      state.addFlow(c, m, 7, 3_000 + 100 * m, now);
    }
  }

  /**
   * Flows into one receiver of running coflow {@code c}: its first active flow finishes and another
   * into the same receiver is added, between two decisions (the same number of flows into it, not
   * the same flows).
   */
  static void replaceFirstFlow(ClusterState state, Coflow c, double now) {
    Flow gone = c.activeFlows().get(0);
    state.addSent(gone, gone.remaining());
    state.finishFlow(gone, now);
    state.addFlow(c, (gone.src() + 1) % 8, gone.dst(), 5_000, now);
  }

  /** {@code dt}, or the time until the first flow served by {@code s} finishes if sooner. */
  static double untilFirstDone(ClusterState state, Schedule s, double dt) {
    return untilFirstDone(state, s::rate, dt);
  }

  /** {@link #untilFirstDone} of flows moving at {@code rate} of their index. */
  static double untilFirstDone(ClusterState state, IntToDoubleFunction rate, double dt) {
    for (Flow f : state.flows()) {
      double r = rate.applyAsDouble(f.index());
      if (r > 0) {
        dt = Math.min(dt, f.remaining() / r);
      }
    }
    return dt;
  }

  /**
   * Coflow "x" with {@code 2 * ports} flows of a megabyte, two from each port to the next two ports
   * round the fabric: enough flows to be filled from pair counts.
   */
  static Coflow ring(ClusterState state, int ports) {
    Coflow x = new Coflow("x", 0, 0, 1);
    state.addCoflow(x);
    for (int m = 0; m < ports; m++) {
      state.addFlow(x, m, (m + 1) % ports, 1_000_000, 0);
      state.addFlow(x, m, (m + 2) % ports, 1_000_000, 0);
    }
    return x;
  }

  /**
   * Every flow of {@code state} is served by {@code byFlow}, at the same rate bit for bit in both.
   */
  static void assertSameRates(ClusterState state, Schedule kept, Schedule byFlow) {
    for (int i = 0; i < state.flows().size(); i++) {
      assertTrue(byFlow.rate(i) > 0, "flow " + i + " is served");
      assertEquals(
          Double.doubleToLongBits(byFlow.rate(i)),
          Double.doubleToLongBits(kept.rate(i)),
          "flow " + i);
    }
  }
}
