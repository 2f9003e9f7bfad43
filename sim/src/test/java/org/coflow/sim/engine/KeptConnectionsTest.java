package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.coflow.core.config.Config;
import org.coflow.core.policy.Policies;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Courier's connections kept from one decision to the next under an ORDER policy ({@link
 * KeptConnections}) give every flow bit for bit the rate of the decision worked out from every
 * flow, at every decision of Sincronia with Courier on the first coflows of the Facebook trace: the
 * policy checks each kept decision against the full one and fails the run at the first difference.
 */
class KeptConnectionsTest {

  @ParameterizedTest
  @CsvSource({"1, 60, 0", "2, 60, 0.001", "8, 60, 0", "8, 100, 0.001"})
  void keptDecisionsEqualTheFullOnes(int maxNum, int coflows, double coalesce) throws Exception {
    Trace trace =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(coflows);
    CourierPolicy courier =
        new CourierPolicy(Policies.create("sincronia", Config.defaults()), maxNum, 4 << 20)
            .crossCheck();
    new Simulator(trace, 125_000_000, coalesce)
        .run(courier, true, new InvariantChecker(false), ProgressListener.NONE);
    KeptConnections kept = courier.kept();
    // The kept path ran, mostly without rebuilding: the check above compared real decisions.
    assertTrue(
        kept.updates() > 10 * kept.rebuilds(),
        "kept decisions " + kept.updates() + ", rebuilds " + kept.rebuilds());
  }
}
