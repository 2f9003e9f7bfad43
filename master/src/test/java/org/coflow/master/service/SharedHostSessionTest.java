package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.CloseSessionRequest;
import org.coflow.api.proto.v1.FindAgentRequest;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shared-host sessions (OpenSessionRequest.shared_host): several processes of one host (the
 * coda-agent, one session per JVM) each hold a session for the host id and each get the schedules
 * of the flows it reported; they never mix with a host's exclusive session (a Courier agent).
 */
class SharedHostSessionTest {
  private MasterService master;
  private Server server;
  private ManagedChannel channel;
  private AgentServiceGrpc.AgentServiceBlockingStub agents;

  @BeforeEach
  void start() throws Exception {
    startMaster(Config.defaults().with(PolicyConfig.DELTA_MS, 20L));
  }

  private void startMaster(Config config) throws Exception {
    master = new MasterService(config);
    String name = InProcessServerBuilder.generateName();
    InProcessServerBuilder b = InProcessServerBuilder.forName(name).directExecutor();
    for (BindableService s : master.services()) {
      b.addService(s);
    }
    server = b.build().start();
    master.start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    agents = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow();
    server.shutdownNow();
    master.close();
  }

  private OpenSessionRequest.Builder request(String host, boolean shared) {
    return OpenSessionRequest.newBuilder()
        .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
        .setHostId(host)
        .setSharedHost(shared);
  }

  private String open(String host, boolean shared) {
    return agents.openSession(request(host, shared).build()).getSessionId();
  }

  private void close(String session) {
    agents.closeSession(CloseSessionRequest.newBuilder().setSessionId(session).build());
  }

  private static Status.Code refused(Runnable call) {
    return assertThrows(StatusRuntimeException.class, call::run).getStatus().getCode();
  }

  @Test
  void sharedSessionsJoinEachOtherButNeverAnExclusiveOne() {
    String s1 = open("10.0.0.1", true);
    String s2 = open("10.0.0.1", true);
    assertNotEquals(s1, s2);
    // A shared session never takes another over, even when it names it.
    String s3 =
        agents
            .openSession(request("10.0.0.1", true).setPreviousSessionId(s1).build())
            .getSessionId();
    assertEquals(3, master.snapshot(0).agents().size(), "every shared session stays live");
    assertTrue(master.snapshot(0).agents().stream().allMatch(MasterSnapshot.Agent::sharedHost));

    // Shared, then exclusive: refused, with or without previous_session_id.
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> open("10.0.0.1", false));
    assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
    String why = e.getStatus().getDescription();
    assertTrue(
        why.contains("'10.0.0.1'") && why.contains("3 shared-host") && why.contains("shared_host"),
        why);
    assertEquals(
        Status.Code.ALREADY_EXISTS,
        refused(
            () -> agents.openSession(request("10.0.0.1", false).setPreviousSessionId(s2).build())));

    // Exclusive, then shared: refused.
    open("10.0.0.2", false);
    e = assertThrows(StatusRuntimeException.class, () -> open("10.0.0.2", true));
    assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
    why = e.getStatus().getDescription();
    assertTrue(why.contains("'10.0.0.2'") && why.contains("exclusive session"), why);
    // The exclusive host keeps its usual rule: a second exclusive session is refused too.
    assertEquals(Status.Code.ALREADY_EXISTS, refused(() -> open("10.0.0.2", false)));

    // Once the last shared session is gone, the host is free for an exclusive session.
    close(s1);
    close(s2);
    assertEquals(Status.Code.ALREADY_EXISTS, refused(() -> open("10.0.0.1", false)));
    close(s3);
    open("10.0.0.1", false);
    assertEquals(2, master.snapshot(0).agents().size());
  }

  @Test
  void findAgentNeverReturnsASharedSession() {
    agents.openSession(
        request("10.0.0.1", true)
            .setDataAddress("10.0.0.1:7337")
            .setEngineAddress("BlockManagerId(1, 10.0.0.1)")
            .build());
    agents.openSession(
        request("10.0.0.2", false)
            .setDataAddress("10.0.0.2:7337")
            .setEngineAddress("BlockManagerId(2, 10.0.0.2)")
            .build());
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> agents.findAgent(FindAgentRequest.newBuilder().setHostId("10.0.0.1").build()));
    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("shared"), e.getStatus().getDescription());
    assertEquals(
        Status.Code.NOT_FOUND,
        refused(
            () ->
                agents.findAgent(
                    FindAgentRequest.newBuilder()
                        .setEngineAddress("BlockManagerId(1, 10.0.0.1)")
                        .build())));
    assertEquals(
        "10.0.0.2:7337",
        agents
            .findAgent(FindAgentRequest.newBuilder().setHostId("10.0.0.2").build())
            .getDataAddress());
    // A shared session's engine address does not block an exclusive session of another host.
    agents.openSession(
        request("10.0.0.3", false).setEngineAddress("BlockManagerId(1, 10.0.0.1)").build());
    assertEquals(
        "10.0.0.3",
        agents
            .findAgent(
                FindAgentRequest.newBuilder()
                    .setEngineAddress("BlockManagerId(1, 10.0.0.1)")
                    .build())
            .getHostId());
  }

  @Test
  void everySharedSessionHoldsOneHostReference() throws Exception {
    stop();
    startMaster(Config.defaults().with(PolicyConfig.DELTA_MS, 20L).with(MasterConfig.MAX_HOSTS, 2));
    String s1 = open("a", true);
    String s2 = open("a", true);
    open("b", false);
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused(() -> open("c", false)));
    close(s1);
    assertEquals(
        Status.Code.RESOURCE_EXHAUSTED,
        refused(() -> open("c", false)),
        "host a is still held by its other shared session");
    open("a", true);
    close(s2);
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused(() -> open("c", false)));
    for (MasterSnapshot.Agent a : master.snapshot(0).agents()) {
      if (a.hostId().equals("a")) {
        close(a.sessionId());
      }
    }
    open("c", false);
  }

  @Test
  void theLargestDeclaredCapacityOfAHostCounts() throws Exception {
    agents.openSession(request("a", true).setUplinkBytesPerSec(100).build());
    agents.openSession(
        request("a", true).setUplinkBytesPerSec(300).setDownlinkBytesPerSec(50).build());
    agents.openSession(request("a", true).build());
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    MasterSnapshot.Host host = null;
    while (host == null || host.uplink() != 300) {
      assertTrue(System.nanoTime() < deadline, "host a's capacity: " + host);
      Thread.sleep(10);
      host =
          master.snapshot(0).hosts().stream()
              .filter(h -> h.id().equals("a"))
              .findFirst()
              .orElse(null);
    }
    assertEquals(300, host.uplink());
    assertEquals(50, host.downlink());
  }

  /**
   * Two JVMs of host 10.0.0.1 (coda-agents, through {@link MasterClientOptions#sharedHost}) each
   * report one flow without a coflow id; each gets its own flow's schedule and nothing else, and
   * closing one leaves the other's flow scheduled. The receiving host's Courier agent (exclusive)
   * gets its own flow's schedule, until its flow finishes.
   */
  @Test
  void eachSharedSessionGetsItsOwnFlowsScheduleOverTcp() throws Exception {
    Config config =
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 20L)
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.HOST, "127.0.0.1");
    try (MasterServer tcp = MasterServer.start(config, null)) {
      MasterService m = tcp.service();
      String target = "127.0.0.1:" + tcp.port();
      MasterClient jvm1 = client(target, "10.0.0.1", true);
      MasterClient jvm2 = client(target, "10.0.0.1", true);
      MasterClient courier = client(target, "10.0.0.2", false);
      try {
        LoopbackCluster.await("three sessions", () -> m.snapshot(0).agents().size() == 3);
        jvm1.updateFlow(11, dark("10.0.0.1", "10.0.0.2"), 0, 1000);
        jvm2.updateFlow(22, dark("10.0.0.1", "10.0.0.2"), 0, 2000);
        courier.updateFlow(
            5,
            FlowSpec.newBuilder()
                .setCoflowId("job")
                .setSrcHost("10.0.0.2")
                .setDstHost("10.0.0.1")
                .build(),
            0,
            500);
        LoopbackCluster.await("three flows", () -> m.activeFlows() == 3);
        LoopbackCluster.await(
            "both JVMs' schedules",
            () -> jvm1.flowSchedule(11) != null && jvm2.flowSchedule(22) != null,
            () -> jvm1.flowSchedules() + " / " + jvm2.flowSchedules());
        LoopbackCluster.await(
            "the Courier agent's schedule",
            () -> courier.flowSchedule(5) != null,
            () -> courier.flowSchedules().toString());
        assertEquals(Set.of(11L), jvm1.flowSchedules().keySet());
        assertEquals(Set.of(22L), jvm2.flowSchedules().keySet());
        assertEquals(Set.of(5L), courier.flowSchedules().keySet());

        jvm1.close();
        LoopbackCluster.await("the closed JVM's flow to leave", () -> m.activeFlows() == 2);
        long epoch = jvm2.epoch();
        LoopbackCluster.await("later rounds", () -> m.round() > epoch + 3);
        assertEquals(2, m.snapshot(0).agents().size());
        assertEquals(Set.of(22L), jvm2.flowSchedules().keySet());
        assertTrue(jvm2.flowSchedule(22).getRateBytesPerSec() > 0, jvm2.flowSchedules().toString());
        assertTrue(
            m.inspectModel(s -> s.flows().size()) == 2, "the other JVM's flow stays in the model");
        assertFalse(jvm2.flowSchedules().containsKey(11L));

        courier.finishFlow(5);
        LoopbackCluster.await(
            "the finished flow's schedule to go",
            () -> courier.flowSchedule(5) == null,
            () -> courier.flowSchedules().toString());
      } finally {
        jvm1.close();
        jvm2.close();
        courier.close();
      }
    }
  }

  private static MasterClient client(String target, String host, boolean shared) {
    MasterClient c =
        new MasterClient(
            new MasterClientOptions(target, host).sharedHost(shared).backoff(20, 200),
            update -> {});
    c.start();
    return c;
  }

  /** A flow without a coflow id, as a coda-agent reports it. */
  private static FlowSpec dark(String src, String dst) {
    return FlowSpec.newBuilder()
        .setSrcHost(src)
        .setDstHost(dst)
        .setStartTimeMs(System.currentTimeMillis())
        .putAllAttributes(Map.of("dst_port", "7337"))
        .build();
  }
}
