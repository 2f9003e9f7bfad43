package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.coflow.master.service.LoopbackCluster.TestFlow;
import org.junit.jupiter.api.Test;

/**
 * A master killed while agents report is replaced by a new one on the same port; once the agents
 * have reconnected, the new master serves consistent schedules within two scheduling rounds.
 */
class MasterRestartTest {

  @Test
  void newMasterIsConsistentWithinTwoRoundsOfReconnection() throws Exception {
    Config config =
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 50L)
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.POLICY, "varys")
            .with(MasterConfig.PUSH_TOLERANCE, 0.0);
    MasterServer first = MasterServer.start(config, null);
    int port = first.port();
    try (LoopbackCluster agents = new LoopbackCluster(port, 1000, "h1", "h2", "h3")) {
      agents.report(
          new TestFlow(1, "A", "h1", "h2", 0, 1000),
          new TestFlow(2, "A", "h2", "h3", 0, 2000),
          new TestFlow(3, "B", "h3", "h1", 0, 3000),
          new TestFlow(4, "B", "h1", "h3", 10, 500));
      LoopbackCluster.await("the first master's flows", () -> first.service().activeFlows() == 4);
      Map<TestFlow, double[]> before = agents.expected(first.service(), "varys", config);
      LoopbackCluster.await("first schedules", () -> agents.mismatch(before) == null);
      String firstId = first.service().masterId();

      first.kill();
      MasterServer second = MasterServer.start(config.with(MasterConfig.PORT, port), null);
      try {
        MasterService master = second.service();
        assertNotEquals(firstId, master.masterId());
        // Count rounds from the round in which the last agent's session was open and its flows
        // were back in the model (a session opens before its first report arrives; on a slow
        // machine two 50 ms rounds can pass in between).
        long[] reconnectedAt = {-1};
        LoopbackCluster.await(
            "agents to reconnect",
            () -> {
              long round = master.round();
              if (master.snapshot(0).agents().size() == 3 && master.activeFlows() == 4) {
                reconnectedAt[0] = round;
                return true;
              }
              return false;
            });
        LoopbackCluster.await("two rounds", () -> master.round() >= reconnectedAt[0] + 2);
        Map<TestFlow, double[]> after = agents.expected(master, "varys", config);
        LoopbackCluster.await(
            "consistent schedules",
            () -> agents.mismatch(after) == null,
            () -> agents.mismatch(after));
        for (String host : agents.clients.keySet()) {
          long epoch = agents.clients.get(host).epoch();
          assertTrue(
              epoch <= reconnectedAt[0] + 2,
              host
                  + " became consistent with the update of round "
                  + epoch
                  + ", more than two rounds after reconnection at round "
                  + reconnectedAt[0]);
        }
      } finally {
        second.close();
      }
    }
  }
}
