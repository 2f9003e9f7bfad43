package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.coflow.master.service.LoopbackCluster.TestFlow;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three agents on loopback report the flows of two coflows to a real master over TCP; what each
 * agent is pushed must be what the policy computes on the same state directly.
 */
class MasterEndToEndTest {

  @ParameterizedTest
  @ValueSource(strings = {"fair", "varys", "aalo", "sincronia"})
  void pushedSchedulesMatchThePolicy(String policy) throws Exception {
    Config config =
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 20L)
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.POLICY, policy)
            .with(MasterConfig.PUSH_TOLERANCE, 0.0);
    try (MasterServer server = MasterServer.start(config, null);
        LoopbackCluster agents = new LoopbackCluster(server.port(), 1000, "h1", "h2", "h3")) {
      MasterService master = server.service();
      LoopbackCluster.await("three sessions", () -> master.snapshot(0).agents().size() == 3);
      agents.report(
          new TestFlow(1, "A", "h1", "h2", 0, 1000),
          new TestFlow(2, "A", "h1", "h3", 100, 2000),
          new TestFlow(3, "A", "h2", "h3", 0, 500));
      LoopbackCluster.await("coflow A", () -> master.activeFlows() == 3);
      agents.report(
          new TestFlow(4, "B", "h3", "h1", 0, 3000),
          new TestFlow(5, "B", "h1", "h2", 0, 1000),
          new TestFlow(6, "B", "h2", "h1", 0, 800));
      LoopbackCluster.await("coflow B", () -> master.activeFlows() == 6);

      Map<TestFlow, double[]> expected = agents.expected(master, policy, config);
      LoopbackCluster.await(
          "agents to hold the policy's schedule",
          () -> agents.mismatch(expected) == null,
          () -> agents.mismatch(expected));
      assertNull(agents.mismatch(expected));
      double total = expected.values().stream().mapToDouble(r -> r[0]).sum();
      assertTrue(total > 0, "the policy moves bytes");
      assertEquals(6, expected.size());
    }
  }
}
