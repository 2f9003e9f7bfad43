package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.core.policy.FairSharing;
import org.coflow.core.policy.ForwardingPolicy;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.Test;

/**
 * Fair sharing simulated on (sender, receiver) pairs ({@link PairSimulator}, which {@link
 * Simulator} runs for {@link FairSharing}) against the per-flow loop running the same policy's
 * per-flow schedule, at the default completion window: the same events and the same CCT for every
 * coflow.
 */
class PairSimulatorTest {
  static final double GBPS = 125_000_000;

  /** Fair sharing behind another class, so that {@link Simulator} takes its per-flow loop. */
  static final class PerFlow extends ForwardingPolicy {
    PerFlow() {
      super(new FairSharing());
    }
  }

  @Test
  void pairsGiveThePerFlowLoopsCompletionTimesOnTwoHundredCoflows() throws Exception {
    Trace trace =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(200);
    Simulator simulator = new Simulator(trace, GBPS, Simulator.DEFAULT_COALESCE);
    SimResult flows = simulator.run(new PerFlow(), false, null, ProgressListener.NONE);
    SimResult pairs =
        new PairSimulator(
                trace.coflows(), trace.ports(), GBPS, Simulator.DEFAULT_COALESCE, Model.DEFAULT)
            .run(
                new FairSharing(),
                Simulator.Coflows.of(trace.coflows(), Model.DEFAULT, GBPS),
                new InvariantChecker(true),
                ProgressListener.NONE,
                System.nanoTime());
    assertEquals(flows.events(), pairs.events());
    for (int i = 0; i < trace.coflows().size(); i++) {
      double rel = Math.abs(pairs.cct()[i] - flows.cct()[i]) / flows.cct()[i];
      assertTrue(rel <= 1e-9, "coflow " + i + ": " + pairs.cct()[i] + " vs " + flows.cct()[i]);
      assertEquals(flows.bytes()[i], pairs.delivered()[i], 1e-6 * flows.bytes()[i]);
    }
  }

  /**
   * The group loops list the groups that may finish within an event from the completion window's
   * bound, which must be a number: a window that is negative, NaN or infinite is refused, naming
   * it.
   */
  @Test
  void aCompletionWindowMustBeZeroOrMoreAndFinite() throws Exception {
    Trace trace = TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(2);
    for (double bad : new double[] {-0.1, Double.NaN, Double.POSITIVE_INFINITY}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new Simulator(trace, GBPS, bad));
      assertTrue(e.getMessage().contains(String.valueOf(bad)), e.getMessage());
    }
    new Simulator(trace, GBPS, 0);
  }
}
