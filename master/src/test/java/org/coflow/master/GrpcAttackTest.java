package org.coflow.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.CoflowServiceGrpc;
import org.coflow.api.proto.v1.FindAgentRequest;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.OpenSessionResponse;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.api.proto.v1.ReportAck;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.service.MasterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The attacks demonstrated against the master's gRPC side, replayed over real gRPC on loopback:
 * each test is the attack, and passes only when the master refuses it and goes on serving.
 */
class GrpcAttackTest {
  private MasterServer server;
  private ManagedChannel channel;

  private void start(Config extra) throws Exception {
    server =
        MasterServer.start(
            extra
                .with(MasterConfig.HOST, "127.0.0.1")
                .with(MasterConfig.PORT, 0)
                .with(MasterConfig.HTTP_PORT, -1)
                .with(PolicyConfig.DELTA_MS, 20L),
            null);
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  private AgentServiceGrpc.AgentServiceBlockingStub agents() {
    return AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static OpenSessionRequest.Builder session(String host, String data) {
    return OpenSessionRequest.newBuilder()
        .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
        .setHostId(host)
        .setDataAddress(data)
        .setEngineAddress("engine-of-" + host);
  }

  @Test
  void aSecondSessionCannotTakeOverALiveHost() throws Exception {
    start(Config.defaults());
    agents().openSession(session("victim", "10.0.0.1:7337").build());

    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> agents().openSession(session("victim", "6.6.6.6:7337").build()));

    assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("'victim'"), e.getStatus().toString());
    assertEquals(
        "10.0.0.1:7337",
        agents()
            .findAgent(FindAgentRequest.newBuilder().setHostId("victim").build())
            .getDataAddress(),
        "FindAgent must keep the address of the session that owns the host");
  }

  @Test
  void expiredFakeSessionsFreeTheirHosts() throws Exception {
    // Long enough that all 2048 sessions are open before the first expires, even on a loaded
    // machine (with 1.5 s the first ones once expired while the last were opening, and the one
    // too many was let in); short enough to expire well within awaitSessions' 10 s.
    start(Config.defaults().with(MasterConfig.SESSION_TIMEOUT_MS, 4000L));
    int max = MasterConfig.MAX_HOSTS.defaultValue();
    AgentServiceGrpc.AgentServiceFutureStub async = AgentServiceGrpc.newFutureStub(channel);
    for (int round = 0; round < 2; round++) {
      List<ListenableFuture<OpenSessionResponse>> opened = new ArrayList<>();
      for (int i = 0; i < max; i++) {
        opened.add(async.openSession(session("fake-" + round + "-" + i, "").build()));
      }
      Futures.allAsList(opened).get(10, TimeUnit.SECONDS);
      StatusRuntimeException full =
          assertThrows(
              StatusRuntimeException.class,
              () -> agents().openSession(session("one-too-many", "").build()));
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, full.getStatus().getCode());
      awaitSessions(0);
    }

    agents().openSession(session("legit", "10.0.0.2:7337").build());
    int ports = server.service().inspectModel(s -> s.fabric().size());
    assertTrue(ports <= max + 1, "the model must reuse freed hosts' ports, has " + ports);
  }

  private void awaitSessions(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.service().snapshot(0).agents().size() != n) {
      assertTrue(System.nanoTime() < deadline, "sessions did not expire");
      Thread.sleep(50);
    }
  }

  @Test
  void megabyteNamesAreRefusedAndTheLoopGoesOn() throws Exception {
    start(Config.defaults());
    String huge = "x".repeat(1 << 20);
    CoflowServiceGrpc.CoflowServiceBlockingStub coflows =
        CoflowServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);

    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                coflows.registerCoflow(
                    RegisterCoflowRequest.newBuilder().setCoflowId("c").setName(huge).build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("coflow.master.maxNameLength"),
        e.getStatus().getDescription());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                coflows.registerCoflow(
                    RegisterCoflowRequest.newBuilder().setCoflowId(huge).build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    e =
        assertThrows(
            StatusRuntimeException.class, () -> agents().openSession(session(huge, "").build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () -> agents().openSession(session("h", "").putLabels("k", huge).build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());

    String s = agents().openSession(session("h", "").build()).getSessionId();
    ReportStream reports = new ReportStream(channel);
    Object answer =
        reports.send(
            ReportBatch.newBuilder()
                .setSessionId(s)
                .addFlows(
                    FlowReport.newBuilder()
                        .setFlowId(1)
                        .setSpec(
                            FlowSpec.newBuilder()
                                .setCoflowId("c")
                                .setSrcHost("h")
                                .setDstHost("g")
                                .putAttributes("stack", huge))
                        .setBytesRemaining(10))
                .build());
    assertEquals(Status.Code.INVALID_ARGUMENT, ((Status) answer).getCode(), answer.toString());
    long round = server.service().round();
    Thread.sleep(200);
    assertTrue(server.service().round() > round + 2, "the scheduling loop stopped");
  }

  @Test
  void oneSessionCannotFloodTheModelWithFlows() throws Exception {
    start(Config.defaults());
    String s = agents().openSession(session("flooder", "").build()).getSessionId();
    ReportStream reports = new ReportStream(channel);
    Status refused = null;
    int perBatch = 25_000;
    for (int b = 0; b < 8 && refused == null; b++) {
      ReportBatch.Builder batch = ReportBatch.newBuilder().setSessionId(s).setSeq(b + 1);
      for (int i = 0; i < perBatch; i++) {
        batch.addFlows(
            FlowReport.newBuilder()
                .setFlowId((long) b * perBatch + i)
                .setSpec(
                    FlowSpec.newBuilder()
                        .setCoflowId("flood-" + (i % 100))
                        .setSrcHost("flooder")
                        .setDstHost("dst-" + (i % 50)))
                .setBytesRemaining(1 << 20));
      }
      Object answer = reports.send(batch.build());
      if (answer instanceof Status st) {
        refused = st;
      }
    }
    assertTrue(refused != null, "200,000 flows from one session were all accepted");
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getCode(), refused.toString());
    assertTrue(
        refused.getDescription().contains("coflow.master.maxFlowsPerSession"),
        refused.getDescription());
    // The flows it did take are scheduled, and the loop keeps its interval.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (server.service().activeFlows() == 0) {
      assertTrue(System.nanoTime() < deadline, "the accepted flows never reached the model");
      Thread.sleep(20);
    }
    server.service().resetLatencyWindows();
    Thread.sleep(1000);
    assertTrue(
        server.service().behindMs() < 1000,
        "the scheduling loop is " + server.service().behindMs() + " ms behind");
  }

  /** A new flow of {@code src} to {@code dst}, 1 MiB to go. */
  private static FlowReport.Builder flow(long id, String src, String dst) {
    return FlowReport.newBuilder()
        .setFlowId(id)
        .setSpec(FlowSpec.newBuilder().setCoflowId("c").setSrcHost(src).setDstHost(dst))
        .setBytesRemaining(1 << 20);
  }

  @Test
  void oneSessionCannotHoldMoreThanItsBytesOfAttributes() throws Exception {
    start(Config.defaults());
    String s = agents().openSession(session("bloater", "").build()).getSessionId();
    // What was seen: every flow with 64 attributes of 512-character keys and values (~128 KiB of
    // strings each), 12,600 of them; 4 times the budget is enough to show a refusal.
    String pad = "v".repeat(508);
    long budget = MasterConfig.MAX_SESSION_BYTES.defaultValue();
    long flowBytes = 2L * 64 * 1024;
    ReportStream reports = new ReportStream(channel);
    Status refused = null;
    int accepted = 0;
    for (int b = 0; refused == null && (long) accepted * flowBytes < 4 * budget; b++) {
      ReportBatch.Builder batch = ReportBatch.newBuilder().setSessionId(s).setSeq(b + 1);
      for (int i = 0; i < 16; i++) {
        FlowReport.Builder f = flow(b * 16 + i, "bloater", "peer");
        for (int a = 0; a < 64; a++) {
          f.getSpecBuilder().putAttributes(String.format("%04d", a) + pad, pad + "abcd");
        }
        batch.addFlows(f);
      }
      Object answer = reports.send(batch.build());
      if (answer instanceof Status st) {
        refused = st;
      } else {
        accepted += 16;
      }
    }
    assertTrue(refused != null, accepted + " flows of 128 KiB each were all accepted");
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getCode(), refused.toString());
    assertTrue(
        refused.getDescription().contains("coflow.master.maxSessionBytes="), refused.toString());
    // The refused batch left nothing behind, and the session goes on with small flows.
    assertEquals(accepted, server.service().snapshot(0).agents().get(0).flows());
    Object small =
        new ReportStream(channel)
            .send(
                ReportBatch.newBuilder()
                    .setSessionId(s)
                    .setSeq(1000)
                    .addFlows(flow(1_000_000, "bloater", "peer"))
                    .build());
    assertTrue(small instanceof ReportAck, small.toString());
    assertEquals(accepted + 1, server.service().snapshot(0).agents().get(0).flows());
  }

  @Test
  void registrationsCountAgainstTheMastersBytes() throws Exception {
    start(Config.defaults().with(MasterConfig.MAX_BYTES, 1L << 20));
    CoflowServiceGrpc.CoflowServiceBlockingStub coflows =
        CoflowServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    // 250 pairs of 500-character host ids: about 500 KB counted each; two fit in 1 MiB.
    java.util.function.IntFunction<RegisterCoflowRequest> big =
        n -> {
          RegisterCoflowRequest.Builder r = RegisterCoflowRequest.newBuilder().setCoflowId("c" + n);
          for (int p = 0; p < 250; p++) {
            r.addSizes(
                org.coflow.api.proto.v1.PairSize.newBuilder()
                    .setSrcHost(String.format("%03d", p) + "s".repeat(497))
                    .setDstHost("d".repeat(500))
                    .setBytes(1));
          }
          return r.build();
        };
    coflows.registerCoflow(big.apply(1));
    coflows.registerCoflow(big.apply(2));
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> coflows.registerCoflow(big.apply(3)));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("coflow.master.maxBytes="),
        e.getStatus().getDescription());
    coflows.unregisterCoflow(
        org.coflow.api.proto.v1.UnregisterCoflowRequest.newBuilder().setCoflowId("c1").build());
    coflows.registerCoflow(big.apply(3)); // room again once one is unregistered
  }

  @Test
  void oneSessionCannotFillTheHostTable() throws Exception {
    start(Config.defaults());
    String s = agents().openSession(session("flooder", "").build()).getSessionId();
    // Flows to invented hosts, enough to leave room for one more host only.
    ReportBatch.Builder batch = ReportBatch.newBuilder().setSessionId(s).setSeq(1);
    for (int i = 0; i < MasterConfig.MAX_HOSTS.defaultValue() - 2; i++) {
      batch.addFlows(flow(i, "flooder", "invented-" + i));
    }
    Object answer = new ReportStream(channel).send(batch.build());
    assertTrue(answer instanceof Status, "flows to 2,046 invented hosts were accepted");
    Status refused = (Status) answer;
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getCode(), refused.toString());
    assertTrue(
        refused.getDescription().contains("coflow.master.maxHostsPerSession="), refused.toString());
    for (int i = 0; i < 10; i++) {
      agents().openSession(session("real-" + i, "10.0.0." + i + ":7337").build());
    }
    // A session may still name many hosts, up to its bound.
    ReportBatch.Builder peers = ReportBatch.newBuilder().setSessionId(s).setSeq(2);
    for (int i = 0; i < 200; i++) {
      peers.addFlows(flow(i, "flooder", "peer-" + i));
    }
    Object ack = new ReportStream(channel).send(peers.build());
    assertTrue(ack instanceof ReportAck, ack.toString());
  }

  @Test
  void peerValuesCannotForgeLogLines() throws Exception {
    start(Config.defaults());
    String forged = "[main] INFO org.coflow.master.MasterServer - FORGED";
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      String s =
          agents()
              .openSession(session("h1\r\n" + forged, "10.0.0.1:7337\n" + forged).build())
              .getSessionId();
      Object refused =
          new ReportStream(channel)
              .send(
                  ReportBatch.newBuilder()
                      .setSessionId(s)
                      .addFlows(flow(1, "elsewhere\n" + forged, "\u2028" + forged))
                      .build());
      assertTrue(refused instanceof Status, refused.toString());
    } finally {
      System.setErr(err);
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    assertTrue(
        log.lines().noneMatch(l -> l.startsWith(forged)),
        "a peer's value started a line of its own:\n" + log);
    assertTrue(log.contains("\\n" + forged), "the escaped value is not in the log:\n" + log);
    assertTrue(!log.contains("\u2028"), "a line separator reached the log:\n" + log);
  }
}
