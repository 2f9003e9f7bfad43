package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.v1.AdminServiceGrpc;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.CloseSessionRequest;
import org.coflow.api.proto.v1.CoflowServiceGrpc;
import org.coflow.api.proto.v1.FindAgentRequest;
import org.coflow.api.proto.v1.FindAgentResponse;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.GetPolicyRequest;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.OpenSessionResponse;
import org.coflow.api.proto.v1.PairSize;
import org.coflow.api.proto.v1.PolicyInfo;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.api.proto.v1.ReportAck;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.api.proto.v1.SetPolicyRequest;
import org.coflow.api.proto.v1.UnregisterCoflowRequest;
import org.coflow.api.proto.v1.WatchScheduleRequest;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every rpc over an in-process channel, with the bad inputs each must refuse cleanly. */
class MasterServiceRpcTest {
  private MasterService master;
  private Server server;
  private ManagedChannel channel;
  private AgentServiceGrpc.AgentServiceBlockingStub agents;
  private AgentServiceGrpc.AgentServiceStub agentsAsync;
  private CoflowServiceGrpc.CoflowServiceBlockingStub coflows;
  private AdminServiceGrpc.AdminServiceBlockingStub admin;

  @BeforeEach
  void start() throws Exception {
    startMaster(
        Config.defaults().with(PolicyConfig.DELTA_MS, 20L).with(MasterConfig.POLICY, "fair"));
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
    agentsAsync = AgentServiceGrpc.newStub(channel);
    coflows = CoflowServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
    admin = AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow();
    server.shutdownNow();
    master.close();
  }

  private OpenSessionResponse open(String host) {
    return agents.openSession(
        OpenSessionRequest.newBuilder()
            .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
            .setHostId(host)
            .setDataAddress(host + ":7337")
            .setEngineAddress("BlockManagerId(" + host + ")")
            .build());
  }

  private static FlowReport flow(
      long id, String coflow, String src, String dst, long sent, long remaining) {
    return FlowReport.newBuilder()
        .setFlowId(id)
        .setSpec(FlowSpec.newBuilder().setCoflowId(coflow).setSrcHost(src).setDstHost(dst))
        .setBytesSent(sent)
        .setBytesRemaining(remaining)
        .build();
  }

  /** A report stream that sends one batch of flows at a time. */
  private final class Reports {
    final org.coflow.master.ReportStream stream = new org.coflow.master.ReportStream(agentsAsync);

    Object send(String session, FlowReport... flows) throws InterruptedException {
      return stream.send(
          ReportBatch.newBuilder()
              .setSessionId(session)
              .setSeq(1)
              .addAllFlows(List.of(flows))
              .build());
    }
  }

  private void awaitRounds(int n) throws InterruptedException {
    long target = master.round() + n;
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (master.round() < target) {
      assertTrue(
          System.nanoTime() < deadline, "the scheduling loop stopped at round " + master.round());
      Thread.sleep(5);
    }
  }

  private int modelFlows() {
    return master.inspectModel(s -> s.flows().size());
  }

  @Test
  void openSessionRefusesBadRequests() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                agents.openSession(
                    OpenSessionRequest.newBuilder()
                        .setProtocolVersionValue(7)
                        .setHostId("h")
                        .build()));
    assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("protocol version 7"), e.getMessage());

    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                agents.openSession(
                    OpenSessionRequest.newBuilder()
                        .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("host_id"), e.getMessage());

    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                agents.openSession(
                    OpenSessionRequest.newBuilder()
                        .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
                        .setHostId("h")
                        .setUplinkBytesPerSec(-5)
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("-5"), e.getMessage());

    OpenSessionResponse ok = open("h1");
    assertFalse(ok.getSessionId().isEmpty());
    assertEquals(master.masterId(), ok.getMasterId());
    assertEquals(20, ok.getIntervalMs());
    assertEquals("fair", ok.getPolicy());
  }

  @Test
  void findAgentLooksUpLiveSessionsByEngineAddressOrHost() {
    open("nm-1");
    String s2 = open("nm-2").getSessionId();
    FindAgentResponse r =
        agents.findAgent(
            FindAgentRequest.newBuilder().setEngineAddress("BlockManagerId(nm-2)").build());
    assertEquals("nm-2", r.getHostId());
    assertEquals("nm-2:7337", r.getDataAddress());
    assertEquals(
        "nm-1:7337",
        agents.findAgent(FindAgentRequest.newBuilder().setHostId("nm-1").build()).getDataAddress());
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                agents.findAgent(
                    FindAgentRequest.newBuilder()
                        .setEngineAddress("BlockManagerId(nm-9)")
                        .build()));
    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("BlockManagerId(nm-9)"),
        e.getStatus().getDescription());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () -> agents.findAgent(FindAgentRequest.getDefaultInstance()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                agents.findAgent(
                    FindAgentRequest.newBuilder().setEngineAddress("x").setHostId("nm-1").build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    // A closed session is no longer found.
    agents.closeSession(CloseSessionRequest.newBuilder().setSessionId(s2).build());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () -> agents.findAgent(FindAgentRequest.newBuilder().setHostId("nm-2").build()));
    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
  }

  @Test
  void reportFromUnknownSessionIsNotFound() throws Exception {
    Object e = new Reports().send("no-such-session", flow(1, "c", "a", "b", 0, 10));
    assertEquals(Status.Code.NOT_FOUND, ((Status) e).getCode());
    assertTrue(((Status) e).getDescription().contains("no-such-session"));
  }

  @Test
  void badBatchesAreRefusedWholeAndLeaveNoTrace() throws Exception {
    String s = open("a").getSessionId();
    FlowReport good = flow(1, "c1", "a", "b", 0, 1000);

    FlowReport unknown = FlowReport.newBuilder().setFlowId(2).setBytesSent(5).build();
    Status st = (Status) new Reports().send(s, good, unknown);
    assertEquals(Status.Code.FAILED_PRECONDITION, st.getCode());
    assertTrue(st.getDescription().contains("flow 2") && st.getDescription().contains("spec"));

    st = (Status) new Reports().send(s, good, flow(3, "c1", "a", "b", -1, 10));
    assertEquals(Status.Code.INVALID_ARGUMENT, st.getCode());
    assertTrue(st.getDescription().contains("-1"), st.getDescription());

    st = (Status) new Reports().send(s, good, flow(3, "c1", "a", "b", 0, -10));
    assertEquals(Status.Code.INVALID_ARGUMENT, st.getCode());
    assertTrue(st.getDescription().contains("bytes_remaining"), st.getDescription());

    st = (Status) new Reports().send(s, good, good);
    assertEquals(Status.Code.INVALID_ARGUMENT, st.getCode());
    assertTrue(st.getDescription().contains("twice"), st.getDescription());

    st = (Status) new Reports().send(s, good, flow(4, "c1", "a", "", 0, 10));
    assertEquals(Status.Code.INVALID_ARGUMENT, st.getCode());
    assertTrue(st.getDescription().contains("dst_host"), st.getDescription());

    awaitRounds(2);
    assertEquals(0, modelFlows(), "a refused batch must not add its valid flows");

    Reports r = new Reports();
    assertTrue(r.send(s, flow(1, "c1", "a", "b", 500, 500)) instanceof ReportAck);
    st = (Status) r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(100).build());
    assertEquals(Status.Code.INVALID_ARGUMENT, st.getCode());
    assertTrue(st.getDescription().contains("backwards from 500 to 100"), st.getDescription());
    st = (Status) new Reports().send(s, flow(1, "c2", "a", "b", 600, 400));
    assertEquals(Status.Code.INVALID_ARGUMENT, st.getCode());
    assertTrue(st.getDescription().contains("spec changed"), st.getDescription());

    awaitRounds(2);
    double sent = master.inspectModel(m -> m.flows().get(0).sent());
    assertEquals(500, sent, "the refused reports must not move the counter");
    assertEquals(1000.0, (double) master.inspectModel(m -> m.flows().get(0).size()));
  }

  @Test
  void watchOfUnknownSessionIsNotFound() throws Exception {
    LinkedBlockingQueue<Status> done = new LinkedBlockingQueue<>();
    agentsAsync.watchSchedule(
        WatchScheduleRequest.newBuilder().setSessionId("nope").build(),
        new StreamObserver<>() {
          @Override
          public void onNext(ScheduleUpdate u) {}

          @Override
          public void onError(Throwable t) {
            done.add(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            done.add(Status.OK);
          }
        });
    Status st = done.poll(5, TimeUnit.SECONDS);
    assertEquals(Status.Code.NOT_FOUND, st.getCode());
  }

  @Test
  void coflowRegistrationValidatesAndUnregisterDropsFlows() throws Exception {
    coflows.registerCoflow(
        RegisterCoflowRequest.newBuilder()
            .setCoflowId("job-1")
            .setName("sort")
            .addSizes(PairSize.newBuilder().setSrcHost("a").setDstHost("b").setBytes(4000))
            .build());
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                coflows.registerCoflow(
                    RegisterCoflowRequest.newBuilder().setCoflowId("job-1").build()));
    assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("job-1"));
    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                coflows.registerCoflow(
                    RegisterCoflowRequest.newBuilder()
                        .setCoflowId("job-2")
                        .addSizes(
                            PairSize.newBuilder().setSrcHost("a").setDstHost("b").setBytes(-3))
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                coflows.registerCoflow(RegisterCoflowRequest.newBuilder().setCoflowId("").build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                coflows.unregisterCoflow(
                    UnregisterCoflowRequest.newBuilder().setCoflowId("job-9").build()));
    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());

    // A flow without bytes_remaining takes its size from the registered pair size.
    String s = open("a").getSessionId();
    FlowReport noSize =
        FlowReport.newBuilder()
            .setFlowId(1)
            .setBytesSent(100)
            .setSpec(FlowSpec.newBuilder().setCoflowId("job-1").setSrcHost("a").setDstHost("b"))
            .build();
    assertTrue(new Reports().send(s, noSize) instanceof ReportAck);
    awaitRounds(2);
    assertEquals(4000.0, master.inspectModel(m -> m.flows().get(0).size()));
    assertEquals("sort", master.snapshot(10).coflows().get(0).name());

    Reports r = new Reports();
    coflows.unregisterCoflow(UnregisterCoflowRequest.newBuilder().setCoflowId("job-1").build());
    awaitRounds(2);
    assertEquals(0, modelFlows());
    // The agent does not know yet: its next reports are taken (not refused) and ignored.
    assertTrue(
        r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(200).build())
            instanceof ReportAck);
    awaitRounds(2);
    assertEquals(0, modelFlows(), "a flow of an unregistered coflow stays out of scheduling");
    assertTrue(
        r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(300).setFinished(true).build())
            instanceof ReportAck);
  }

  @Test
  void unregisteringAnIdentifiedCoflowDropsItsFlows() throws Exception {
    stop();
    startMaster(
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 20L)
            .with(MasterConfig.IDENTIFY_MODE, "attribute"));
    String s = open("a").getSessionId();
    FlowReport.Builder tagged =
        FlowReport.newBuilder()
            .setBytesRemaining(10)
            .setSpec(
                FlowSpec.newBuilder()
                    .setSrcHost("a")
                    .setDstHost("b")
                    .putAttributes("job", "etl-7"));
    Reports r = new Reports();
    assertTrue(r.send(s, tagged.setFlowId(1).build()) instanceof ReportAck);
    coflows.registerCoflow(RegisterCoflowRequest.newBuilder().setCoflowId("job=etl-7").build());
    awaitRounds(2);
    assertEquals(1, modelFlows());
    coflows.unregisterCoflow(UnregisterCoflowRequest.newBuilder().setCoflowId("job=etl-7").build());
    awaitRounds(2);
    assertEquals(0, modelFlows());
    assertTrue(
        r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(5).build())
            instanceof ReportAck);
    awaitRounds(2);
    assertEquals(0, modelFlows(), "a dropped identified flow is not admitted again");
  }

  @Test
  void agentsReportOnlyTheirOwnHostsFlowsAndHostsAreBounded() throws Exception {
    String s = open("a").getSessionId();
    Status st = (Status) new Reports().send(s, flow(1, "c", "x", "y", 0, 10));
    assertEquals(Status.Code.INVALID_ARGUMENT, st.getCode());
    assertTrue(
        st.getDescription().contains("'x'") && st.getDescription().contains("'a'"),
        st.getDescription());
    stop();
    startMaster(Config.defaults().with(PolicyConfig.DELTA_MS, 20L).with(MasterConfig.MAX_HOSTS, 3));
    s = open("a").getSessionId();
    assertTrue(new Reports().send(s, flow(1, "c", "a", "b", 0, 10)) instanceof ReportAck);
    st =
        (Status)
            new Reports().send(s, flow(2, "c", "a", "c", 0, 10), flow(3, "c", "a", "d", 0, 10));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, st.getCode());
    assertTrue(st.getDescription().contains("coflow.master.maxHosts=3"), st.getDescription());
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> {
              open("c");
              open("d");
            });
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
  }

  @Test
  void aFlowThatReportedItsLastByteIsNotAdmittedAgain() throws Exception {
    String s = open("a").getSessionId();
    Reports r = new Reports();
    r.send(s, flow(1, "c", "a", "b", 50, 50));
    awaitRounds(2);
    assertEquals(1, modelFlows());
    r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(100).setBytesRemaining(0).build());
    awaitRounds(2);
    assertEquals(0, modelFlows());
    r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(100).setBytesRemaining(0).build());
    awaitRounds(2);
    assertEquals(0, modelFlows(), "an agent repeating its last counters must not restart the flow");
  }

  @Test
  void aFlowIdThatEndsAndReturnsInOneRoundKeepsItsSchedule() throws Exception {
    String s = open("a").getSessionId();
    Map<Long, Double> schedule = new java.util.concurrent.ConcurrentHashMap<>();
    agentsAsync.watchSchedule(
        WatchScheduleRequest.newBuilder().setSessionId(s).build(),
        new StreamObserver<>() {
          @Override
          public void onNext(ScheduleUpdate u) {
            if (u.getFull()) {
              schedule.clear();
            }
            u.getRemovedFlowsList().forEach(schedule::remove);
            u.getFlowsList().forEach(f -> schedule.put(f.getFlowId(), f.getRateBytesPerSec()));
          }

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        });
    Reports r = new Reports();
    r.send(s, flow(7, "c", "a", "b", 0, 1000));
    awaitRounds(2);
    assertTrue(schedule.containsKey(7L));
    // The direct executor and a 20 ms interval put both batches in the same round almost always;
    // the assertion holds either way.
    r.send(s, FlowReport.newBuilder().setFlowId(7).setBytesSent(1000).setFinished(true).build());
    r.send(s, flow(7, "c2", "a", "b", 0, 500));
    awaitRounds(3);
    assertEquals(1, modelFlows());
    assertTrue(schedule.containsKey(7L), "the returning flow lost its schedule entry: " + schedule);
  }

  @Test
  void policySwitchesAtRuntimeAndRefusesUnknownNames() throws Exception {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> admin.setPolicy(SetPolicyRequest.newBuilder().setName("fastest").build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("varys"), e.getMessage());
    assertEquals("fair", admin.getPolicy(GetPolicyRequest.getDefaultInstance()).getName());

    PolicyInfo info = admin.setPolicy(SetPolicyRequest.newBuilder().setName("sincronia").build());
    assertEquals("sincronia", info.getName());
    assertEquals(org.coflow.api.proto.v1.PolicyType.POLICY_TYPE_ORDER, info.getType());
    awaitRounds(2);
    assertEquals("sincronia", master.snapshot(0).policy());
  }

  @Test
  void closingReplacingAndExpiringSessionsDropTheirFlows() throws Exception {
    stop();
    startMaster(
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 20L)
            .with(MasterConfig.SESSION_TIMEOUT_MS, 300L));
    String a = open("a").getSessionId();
    assertTrue(new Reports().send(a, flow(1, "c", "a", "b", 0, 100)) instanceof ReportAck);
    awaitRounds(2);
    assertEquals(1, modelFlows());
    agents.closeSession(CloseSessionRequest.newBuilder().setSessionId(a).build());
    agents.closeSession(CloseSessionRequest.newBuilder().setSessionId(a).build());
    awaitRounds(2);
    assertEquals(0, modelFlows());

    String a2 = open("a").getSessionId();
    assertTrue(new Reports().send(a2, flow(1, "c", "a", "b", 0, 100)) instanceof ReportAck);
    awaitRounds(2);
    assertEquals(1, modelFlows());
    StatusRuntimeException taken = assertThrows(StatusRuntimeException.class, () -> open("a"));
    assertEquals(Status.Code.ALREADY_EXISTS, taken.getStatus().getCode(), "a live host is held");
    String a3 =
        agents
            .openSession(
                OpenSessionRequest.newBuilder()
                    .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
                    .setHostId("a")
                    .setPreviousSessionId(a2)
                    .build())
            .getSessionId();
    Status st = (Status) new Reports().send(a2, flow(2, "c", "a", "b", 0, 100));
    assertEquals(Status.Code.NOT_FOUND, st.getCode(), "a replaced session is gone");
    awaitRounds(2);
    assertEquals(0, modelFlows(), "the replaced session's flows are dropped");

    assertTrue(new Reports().send(a3, flow(1, "c", "a", "b", 0, 100)) instanceof ReportAck);
    awaitRounds(2);
    assertEquals(1, modelFlows());
    Thread.sleep(500);
    awaitRounds(2);
    assertEquals(0, modelFlows(), "a silent session expires with its flows");
    assertEquals(0, master.snapshot(0).agents().size());
  }

  @Test
  void flowsWithoutCoflowIdAreGroupedByTheAttributeIdentifier() throws Exception {
    stop();
    startMaster(
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 20L)
            .with(MasterConfig.IDENTIFY_MODE, "attribute"));
    String s = open("a").getSessionId();
    FlowReport.Builder tagged =
        FlowReport.newBuilder()
            .setBytesRemaining(10)
            .setSpec(
                FlowSpec.newBuilder()
                    .setSrcHost("a")
                    .setDstHost("b")
                    .putAttributes("job", "etl-7"));
    FlowReport untagged =
        FlowReport.newBuilder()
            .setFlowId(3)
            .setBytesRemaining(10)
            .setSpec(FlowSpec.newBuilder().setSrcHost("a").setDstHost("c"))
            .build();
    assertTrue(
        new Reports()
                .send(s, tagged.setFlowId(1).build(), tagged.clone().setFlowId(2).build(), untagged)
            instanceof ReportAck);
    awaitRounds(2);
    Map<String, Integer> widths =
        master.inspectModel(
            m -> {
              Map<String, Integer> w = new java.util.TreeMap<>();
              m.coflows().forEach(c -> w.put(c.id(), c.activeFlows().size()));
              return w;
            });
    assertEquals(Map.of("job=etl-7", 2, "flow:a/3", 1), widths);
  }

  @Test
  void aBadIdentificationConfigNamesTheKey() throws Exception {
    java.nio.file.Path missing = java.nio.file.Path.of("target", "no-such-weights.properties");
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                new MasterService(
                    Config.defaults().with(MasterConfig.IDENTIFY_METRIC, missing.toString())));
    assertTrue(
        e.getMessage().contains("coflow.master.identify.metric")
            && e.getMessage().contains(missing.toString()),
        e.getMessage());
    e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> new MasterService(Config.defaults().with(MasterConfig.IDENTIFY_EPS, 0.2)));
    assertTrue(e.getMessage().contains("coflow.master.identify.tau"), e.getMessage());
    java.nio.file.Path partial = java.nio.file.Files.createTempFile("weights", ".properties");
    try {
      java.nio.file.Files.writeString(partial, "spark.time=3.8\nspark.community=5\n");
      e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class,
              () ->
                  new MasterService(
                      Config.defaults().with(MasterConfig.IDENTIFY_METRIC, partial.toString())));
      assertTrue(
          e.getMessage().contains("'spark.port'") && e.getMessage().contains(partial.toString()),
          e.getMessage());
      // A file the learner wrote is taken.
      new org.coflow.core.identify.CodaMetric(3.8, 9.0, 0, 3.5, 3.2, 0).store(partial, "learned");
      new MasterService(Config.defaults().with(MasterConfig.IDENTIFY_METRIC, partial.toString()))
          .close();
    } finally {
      java.nio.file.Files.deleteIfExists(partial);
    }
  }

  /**
   * A Spark reader asks for blocks in waves, and later reduce tasks add theirs to the same host
   * pair's flow: the model's size follows what is reported, and a flow whose reported bytes ran out
   * comes back when more are asked for, so a policy never sees a busy flow as done.
   */
  @Test
  void aFlowGrowsWithWhatItsAgentReportsAndReturnsAfterRunningOut() throws Exception {
    String s = open("a").getSessionId();
    Reports r = new Reports();
    r.send(s, flow(1, "c", "a", "b", 0, 100));
    awaitRounds(2);
    assertEquals(100.0, master.inspectModel(m -> m.flows().get(0).remaining()));
    r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(80).setBytesRemaining(300).build());
    awaitRounds(2);
    assertEquals(
        300.0,
        master.inspectModel(m -> m.flows().get(0).remaining()),
        "more blocks were asked for");
    assertEquals(380.0, master.inspectModel(m -> m.coflows().get(0).totalBytes()));
    r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(380).setBytesRemaining(0).build());
    awaitRounds(2);
    assertEquals(0, modelFlows());
    r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(400).setBytesRemaining(50).build());
    awaitRounds(2);
    assertEquals(1, modelFlows(), "the flow's agent asked for more after its bytes ran out");
    assertEquals(50.0, master.inspectModel(m -> m.flows().get(0).remaining()));
  }

  @Test
  void finishedFlowsLeaveTheModel() throws Exception {
    String s = open("a").getSessionId();
    Reports r = new Reports();
    r.send(s, flow(1, "c", "a", "b", 0, 100), flow(2, "c", "a", "b", 0, 100));
    awaitRounds(2);
    assertEquals(2, modelFlows());
    r.send(s, FlowReport.newBuilder().setFlowId(1).setBytesSent(100).setFinished(true).build());
    awaitRounds(2);
    assertEquals(1, modelFlows());
    assertEquals(
        100.0,
        master.inspectModel(m -> m.coflows().get(0).bytesSent()),
        "the finished flow's last bytes count for its coflow");
  }
}
