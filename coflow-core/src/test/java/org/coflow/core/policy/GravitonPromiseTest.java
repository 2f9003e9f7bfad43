package org.coflow.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.junit.jupiter.api.Test;

/**
 * Graviton under {@link SchedulingPolicy#movesAsDecided} notes which coflows a decision serves when
 * asked for its next decision time: a caller that breaks the promise (deciding again first, or
 * asking about another schedule) gets an error saying so rather than a decision on stale service,
 * and one that keeps it gets the next decision times of a policy without the promise.
 */
class GravitonPromiseTest {
  private static final double CAP = 1000;

  private static Graviton graviton() {
    return new Graviton(6, 10_000, 10, 0.2, 0);
  }

  /** Two coflows on one receiver: the wider one waits, and starves after 0.2 s. */
  private static ClusterState state() {
    ClusterState state = new ClusterState(Fabric.uniform(4, CAP));
    Coflow narrow = new Coflow("narrow", 0, 0, 1);
    state.addCoflow(narrow);
    state.addFlow(narrow, 0, 3, 5_000, 0);
    Coflow wide = new Coflow("wide", 1, 0, 1);
    state.addCoflow(wide);
    state.addFlow(wide, 1, 3, 5_000, 0);
    state.addFlow(wide, 2, 3, 5_000, 0);
    return state;
  }

  @Test
  void decidingAgainBeforeAskingTheNextDecisionTimeIsAnError() {
    Graviton g = graviton();
    g.movesAsDecided();
    ClusterState state = state();
    g.schedule(state, 0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> g.schedule(state, 0));
    assertTrue(e.getMessage().contains("movesAsDecided"), e.getMessage());
  }

  @Test
  void askingAboutAnotherScheduleIsAnError() {
    Graviton g = graviton();
    g.movesAsDecided();
    ClusterState state = state();
    g.schedule(state, 0);
    Schedule other = Schedule.empty(state);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> g.nextDecisionTime(state, other, 0));
    assertTrue(e.getMessage().contains("another schedule"), e.getMessage());
  }

  @Test
  void promisedDecisionsAndTimesAreThoseWithoutThePromise() {
    Graviton promised = graviton();
    promised.movesAsDecided();
    Graviton plain = graviton();
    ClusterState a = state();
    ClusterState b = state();
    double now = 0;
    for (int step = 0; step < 4; step++) {
      Schedule sa = promised.schedule(a, now);
      Schedule sb = plain.schedule(b, now);
      for (int i = 0; i < a.flows().size(); i++) {
        assertEquals(sb.rate(i), sa.rate(i), 0.0, "flow " + i + " at " + now);
      }
      double next = promised.nextDecisionTime(a, sa, now);
      assertEquals(plain.nextDecisionTime(b, sb, now), next, 0.0, "next decision after " + now);
      // Stay put in bytes (nothing moves): only the starvation timer of the waiting coflow runs.
      now = Math.min(next, now + 0.1);
    }
    assertTrue(now > 0.2, "the run reached the starvation boost: " + now);
  }
}
