package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.coflow.core.config.Config;
import org.coflow.core.identify.Accuracy;
import org.coflow.core.identify.CodaMetric;
import org.coflow.core.policy.Policies;
import org.coflow.sim.engine.IdentifiedSimulator.Grouping;
import org.coflow.sim.identify.IdentifyWorkload;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceCoflow;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulator for coflows in the dark, against the coflow simulator and on exact identification.
 */
class IdentifiedSimulatorTest {
  private static final double GBPS = 125e6;

  /** Every flow starts exactly at its coflow's arrival (whole milliseconds, rounds of 1 ms). */
  private static List<IdentifyWorkload.Flow> together(Trace trace) {
    List<IdentifyWorkload.Flow> flows = new ArrayList<>();
    long id = 0;
    for (TraceCoflow c : trace.coflows()) {
      double t = c.arrivalMs() / 1000.0;
      for (int j = 0; j < c.reducers().length; j++) {
        for (int m : c.mappers()) {
          flows.add(
              new IdentifyWorkload.Flow(
                  id++,
                  t,
                  t,
                  m,
                  c.reducers()[j],
                  40000,
                  40000 + j,
                  false,
                  Integer.toString(c.id()),
                  c.flowBytes(j)));
        }
      }
    }
    return flows;
  }

  @ParameterizedTest
  @ValueSource(strings = {"fair", "aalo", "coda"})
  void trueCoflowsThatStartTogetherHaveTheCoflowSimulatorsCcts(String policy) throws Exception {
    Trace trace =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(25);
    SimResult expected =
        new Simulator(trace, GBPS, Simulator.DEFAULT_COALESCE)
            .run(Policies.create(policy, Config.defaults()), false, null, ProgressListener.NONE);
    SimResult got =
        new IdentifiedSimulator(
                trace, together(trace), GBPS, 0.001, CodaMetric.PAPER_SPARK_HADOOP, 1, 0.5)
            .run(
                policy,
                Policies.create(policy, Config.defaults()),
                Grouping.TRUE,
                ProgressListener.NONE);
    for (int i = 0; i < expected.coflows(); i++) {
      assertEquals(
          expected.cct()[i],
          got.cct()[i],
          1e-6 * Math.max(1, expected.cct()[i]),
          policy + ": coflow " + expected.ids()[i]);
    }
  }

  @Test
  void wellSeparatedCoflowsAreIdentifiedExactlyAndScheduledAsTheTrueOnes() throws Exception {
    // Three shuffles 10 s apart on 6 ports; Spark start times (within 100 ms of arrival).
    Trace trace =
        TraceParser.parse(
            "hand",
            new StringReader(
                "6 3\n1 0 2 0 1 2 2:40.0 3:20.0\n2 10000 3 3 4 5 2 0:30.0 1:30.0\n3 20000 2 1 2 1 5:50.0\n"));
    List<IdentifyWorkload.Flow> flows =
        IdentifyWorkload.generate(
            trace,
            IdentifyWorkload.Framework.SPARK,
            IdentifyWorkload.Arrivals.NORMAL,
            10,
            Integer.MAX_VALUE,
            3);
    IdentifiedSimulator sim =
        new IdentifiedSimulator(trace, flows, GBPS, 0.1, CodaMetric.PAPER_SPARK_HADOOP, 1, 0.5);
    SimResult truth =
        sim.run(
            "coda",
            Policies.create("coda", Config.defaults()),
            Grouping.TRUE,
            ProgressListener.NONE);
    SimResult found =
        sim.run(
            "coda",
            Policies.create("coda", Config.defaults()),
            Grouping.IDENTIFIED,
            ProgressListener.NONE);
    Accuracy acc = sim.lastAccuracy();
    assertEquals(1.0, acc.precision());
    assertEquals(1.0, acc.recall());
    assertArrayEquals(truth.cct(), found.cct(), 1e-9);
  }
}
