package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionResponse;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.junit.jupiter.api.Test;

/** An agent whose master is missing keeps retrying with a bounded backoff, then connects. */
class MasterClientReconnectTest {

  @Test
  void backsOffWhileTheMasterIsMissingAndConnectsWhenItComes() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<Long> retries = new CopyOnWriteArrayList<>();
    List<String> sessions = new CopyOnWriteArrayList<>();
    MasterClient client =
        new MasterClient(
            new MasterClientOptions("127.0.0.1:" + port, "h1").backoff(20, 160).callTimeout(1000),
            new MasterClient.Listener() {
              @Override
              public void onSchedule(ScheduleUpdate update) {}

              @Override
              public void onSession(OpenSessionResponse session) {
                sessions.add(session.getMasterId());
              }

              @Override
              public void onDisconnected(Status status, long retryInMillis) {
                retries.add(retryInMillis);
              }
            });
    client.start();
    client.updateFlow(
        1,
        FlowSpec.newBuilder().setCoflowId("c").setSrcHost("h1").setDstHost("h2").build(),
        0,
        100);
    LoopbackCluster.await("five failed attempts", () -> retries.size() >= 5);
    assertFalse(client.connected());
    assertTrue(retries.get(0) < 40, "first retry after about the initial backoff: " + retries);
    for (long r : retries) {
      assertTrue(r <= 160 * 1.2 + 1, "retry " + r + " ms exceeds the maximum backoff");
    }
    assertTrue(retries.get(4) >= 160, "the backoff grows to its maximum: " + retries);

    Config config =
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 20L)
            .with(MasterConfig.PORT, port)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.HOST, "127.0.0.1");
    try (MasterServer server = MasterServer.start(config, null)) {
      LoopbackCluster.await(
          "the flow to reach the master", () -> server.service().activeFlows() == 1);
      LoopbackCluster.await("a schedule", () -> client.flowSchedule(1) != null);
      assertEquals(List.of(server.service().masterId()), sessions);
    } finally {
      client.close();
    }
  }
}
