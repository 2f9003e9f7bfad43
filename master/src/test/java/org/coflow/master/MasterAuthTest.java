package org.coflow.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.coflow.api.client.CoflowRegistrar;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.client.MasterCredentials;
import org.coflow.api.proto.v1.AdminServiceGrpc;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.CloseSessionRequest;
import org.coflow.api.proto.v1.CoflowServiceGrpc;
import org.coflow.api.proto.v1.FindAgentRequest;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.GetPolicyRequest;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.api.proto.v1.ReportAck;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.api.proto.v1.SetPolicyRequest;
import org.coflow.api.proto.v1.UnregisterCoflowRequest;
import org.coflow.api.security.BearerToken;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.security.TestCerts;
import org.coflow.master.service.MasterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication over real gRPC and HTTP on loopback: the token on every service, TLS and mutual
 * TLS end to end with generated certificates, and the configurations the master refuses to start
 * with.
 */
class MasterAuthTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";

  @TempDir Path dir;
  private MasterServer server;
  private final List<AutoCloseable> closers = new ArrayList<>();

  private MasterServer start(Config extra) throws Exception {
    server =
        MasterServer.start(
            extra
                .with(MasterConfig.HOST, "127.0.0.1")
                .with(MasterConfig.PORT, 0)
                .with(MasterConfig.HTTP_PORT, 0)
                .with(PolicyConfig.DELTA_MS, 20L),
            null);
    return server;
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closers) {
      c.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private ManagedChannel plaintext() {
    ManagedChannel c =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    closers.add(c::shutdownNow);
    return c;
  }

  private static Status statusOf(Runnable call) {
    return assertThrows(StatusRuntimeException.class, call::run).getStatus();
  }

  /** Every rpc of every service, as a call that throws its status. */
  private static List<Runnable> everyRpc(io.grpc.Channel ch) {
    var agents = AgentServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS);
    var coflows = CoflowServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS);
    var admin = AdminServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS);
    return List.of(
        () -> agents.openSession(open("h1")),
        () -> agents.findAgent(FindAgentRequest.newBuilder().setHostId("h1").build()),
        () -> agents.closeSession(CloseSessionRequest.newBuilder().setSessionId("s").build()),
        () ->
            agents
                .watchSchedule(
                    org.coflow.api.proto.v1.WatchScheduleRequest.newBuilder()
                        .setSessionId("s")
                        .build())
                .hasNext(),
        () -> report(ch),
        () -> coflows.registerCoflow(RegisterCoflowRequest.newBuilder().setCoflowId("c").build()),
        () ->
            coflows.unregisterCoflow(UnregisterCoflowRequest.newBuilder().setCoflowId("c").build()),
        () -> admin.getPolicy(GetPolicyRequest.getDefaultInstance()),
        () -> admin.setPolicy(SetPolicyRequest.newBuilder().setName("varys").build()));
  }

  private static OpenSessionRequest open(String host) {
    return OpenSessionRequest.newBuilder()
        .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
        .setHostId(host)
        .build();
  }

  /** A Report stream's first batch; throws the stream's status if it fails. */
  private static void report(io.grpc.Channel ch) {
    CompletableFuture<Status> end = new CompletableFuture<>();
    StreamObserver<ReportBatch> out =
        AgentServiceGrpc.newStub(ch)
            .report(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ReportAck ack) {
                    end.complete(Status.OK);
                  }

                  @Override
                  public void onError(Throwable t) {
                    end.complete(Status.fromThrowable(t));
                  }

                  @Override
                  public void onCompleted() {
                    end.complete(Status.OK);
                  }
                });
    out.onNext(ReportBatch.newBuilder().setSessionId("s").build());
    Status st = end.orTimeout(5, TimeUnit.SECONDS).join();
    out.onCompleted();
    throw st.asRuntimeException();
  }

  @Test
  void everyServiceRefusesCallsWithoutTheToken() throws Exception {
    start(
        Config.defaults()
            .with(MasterConfig.TOKEN_FILE, TestCerts.tokenFile(dir, TOKEN).toString()));
    ManagedChannel ch = plaintext();
    io.grpc.Channel wrong =
        ClientInterceptors.intercept(
            ch, BearerToken.clientInterceptor("not-the-token-but-long-enough"));
    for (io.grpc.Channel c : List.of(ch, wrong)) {
      for (Runnable rpc : everyRpc(c)) {
        Status st = statusOf(rpc);
        assertEquals(Status.Code.UNAUTHENTICATED, st.getCode(), st.toString());
        assertTrue(st.getDescription().contains("coflow.master.auth.tokenFile"), st.toString());
      }
    }
    assertEquals("aalo", server.service().policy().name(), "a refused SetPolicy changed nothing");
    assertEquals(0, server.service().snapshot(0).agents().size());

    // With the token, every service answers (its own errors, not UNAUTHENTICATED).
    io.grpc.Channel right = ClientInterceptors.intercept(ch, BearerToken.clientInterceptor(TOKEN));
    for (Runnable rpc : everyRpc(right)) {
      try {
        rpc.run();
      } catch (StatusRuntimeException e) {
        assertTrue(
            e.getStatus().getCode() != Status.Code.UNAUTHENTICATED, e.getStatus().toString());
      }
    }
    assertEquals("varys", server.service().policy().name());
  }

  @Test
  void agentsAndFrameworksConnectWithTheTokenOverTls() throws Exception {
    TestCerts.Pem master = TestCerts.selfSigned(dir, "master");
    start(
        Config.defaults()
            .with(MasterConfig.TOKEN_FILE, TestCerts.tokenFile(dir, TOKEN).toString())
            .with(MasterConfig.TLS_CERT_FILE, master.cert().toString())
            .with(MasterConfig.TLS_KEY_FILE, master.key().toString()));
    String target = "127.0.0.1:" + server.port();

    MasterClient agent =
        new MasterClient(
            new MasterClientOptions(target, "exec-1")
                .tls(master.cert())
                .token(TOKEN)
                .backoff(20, 200),
            u -> {});
    closers.add(agent);
    agent.start();
    agent.updateFlow(
        1,
        FlowSpec.newBuilder().setCoflowId("c").setSrcHost("exec-1").setDstHost("exec-2").build(),
        0,
        1 << 20);
    await(() -> server.service().activeFlows() == 1, "the agent's flow never arrived over TLS");

    CoflowRegistrar registrar =
        new CoflowRegistrar(
            target, 5_000, MasterCredentials.none().withTls(master.cert()).withToken(TOKEN));
    closers.add(registrar);
    assertTrue(registrar.register("app-1/shuffle-0", "query 1"));

    // Plaintext cannot talk to a TLS master, and TLS without the token is refused.
    Status st =
        statusOf(
            () ->
                AdminServiceGrpc.newBlockingStub(plaintext())
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .getPolicy(GetPolicyRequest.getDefaultInstance()));
    assertEquals(Status.Code.UNAVAILABLE, st.getCode(), st.toString());
    CoflowRegistrar noToken =
        new CoflowRegistrar(target, 5_000, MasterCredentials.none().withTls(master.cert()));
    closers.add(noToken);
    assertTrue(!noToken.register("app-1/shuffle-1", "query 1"), "registered without the token");
  }

  @Test
  void clientCertificatesBindHostsToTheirHolder(@TempDir Path other) throws Exception {
    TestCerts.Pem master = TestCerts.selfSigned(dir, "master");
    TestCerts.Pem alice = TestCerts.selfSigned(dir, "agent-alice");
    TestCerts.Pem mallory = TestCerts.selfSigned(other, "agent-mallory");
    Path cas = dir.resolve("clients.pem");
    Files.writeString(cas, Files.readString(alice.cert()) + Files.readString(mallory.cert()));
    start(
        Config.defaults()
            .with(MasterConfig.TLS_CERT_FILE, master.cert().toString())
            .with(MasterConfig.TLS_KEY_FILE, master.key().toString())
            .with(MasterConfig.TLS_CLIENT_CA_FILE, cas.toString()));
    String target = "127.0.0.1:" + server.port();
    CoflowRegistrar asAlice =
        new CoflowRegistrar(
            target,
            5_000,
            MasterCredentials.none()
                .withTls(master.cert())
                .withClientCertificate(alice.cert(), alice.key()));
    CoflowRegistrar asMallory =
        new CoflowRegistrar(
            target,
            5_000,
            MasterCredentials.none()
                .withTls(master.cert())
                .withClientCertificate(mallory.cert(), mallory.key()));
    closers.add(asAlice);
    closers.add(asMallory);

    MasterClient agent =
        new MasterClient(
            new MasterClientOptions(target, "host-a")
                .addresses("10.0.0.1:7337", "nm-a:13562")
                .tls(master.cert())
                .clientCertificate(alice.cert(), alice.key())
                .backoff(20, 200),
            u -> {});
    closers.add(agent);
    agent.start();
    await(agent::connected, "the agent with a client certificate never connected");

    ManagedChannel malloryChannel =
        io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forTarget(target)
            .sslContext(
                io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts.forClient()
                    .trustManager(master.cert().toFile())
                    .keyManager(mallory.cert().toFile(), mallory.key().toFile())
                    .build())
            .build();
    closers.add(malloryChannel::shutdownNow);
    Status st =
        statusOf(
            () ->
                AgentServiceGrpc.newBlockingStub(malloryChannel)
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .openSession(
                        open("host-a").toBuilder().setDataAddress("6.6.6.6:7337").build()));
    assertEquals(Status.Code.ALREADY_EXISTS, st.getCode(), st.toString());
    assertEquals("10.0.0.1:7337", asMallory.findAgent("nm-a:13562").getDataAddress());
    assertTrue(asAlice.register("c1", "alice's"));

    // No client certificate: the handshake fails.
    CoflowRegistrar anonymous =
        new CoflowRegistrar(target, 5_000, MasterCredentials.none().withTls(master.cert()));
    closers.add(anonymous);
    assertTrue(!anonymous.register("c2", "anyone's"), "registered without a client certificate");
  }

  @Test
  void httpChangesNeedTheToken() throws Exception {
    start(
        Config.defaults()
            .with(MasterConfig.TOKEN_FILE, TestCerts.tokenFile(dir, TOKEN).toString()));
    HttpClient http = HttpClient.newHttpClient();
    URI policy = URI.create("http://127.0.0.1:" + server.httpPort() + "/api/policy");
    // No header, a wrong token, the right token without its scheme.
    for (String auth : new String[] {null, "Bearer wrong-token-wrong-token", TOKEN}) {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(policy)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"varys\"}"));
      if (auth != null) {
        b.header("Authorization", auth);
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, r.statusCode(), r.body());
      assertEquals("Bearer", r.headers().firstValue("WWW-Authenticate").orElse(""));
    }
    HttpResponse<String> ok =
        http.send(
            HttpRequest.newBuilder(policy)
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + TOKEN)
                .header("Origin", "http://127.0.0.1:" + server.httpPort())
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"varys\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, ok.statusCode(), ok.body());
    assertEquals("varys", server.service().policy().name());
    assertEquals(
        200,
        http.send(HttpRequest.newBuilder(policy).build(), HttpResponse.BodyHandlers.ofString())
            .statusCode(),
        "reading the policy needs no token");
  }

  @Test
  void onlyTheOperatorsTokenSwitchesThePolicy() throws Exception {
    String operator = "fedcba9876543210fedcba9876543210";
    start(
        Config.defaults()
            .with(MasterConfig.TOKEN_FILE, TestCerts.tokenFile(dir, TOKEN).toString())
            .with(
                MasterConfig.OPERATOR_TOKEN_FILE,
                TestCerts.tokenFile(Files.createDirectory(dir.resolve("ops")), operator)
                    .toString()));
    ManagedChannel ch = plaintext();
    io.grpc.Channel asAgent =
        ClientInterceptors.intercept(ch, BearerToken.clientInterceptor(TOKEN));
    var agentAdmin =
        AdminServiceGrpc.newBlockingStub(asAgent).withDeadlineAfter(5, TimeUnit.SECONDS);

    // What every agent carries still reports and reads, but cannot steer the cluster.
    AgentServiceGrpc.newBlockingStub(asAgent)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .openSession(open("h1"));
    assertEquals("aalo", agentAdmin.getPolicy(GetPolicyRequest.getDefaultInstance()).getName());
    Status denied =
        statusOf(
            () -> agentAdmin.setPolicy(SetPolicyRequest.newBuilder().setName("varys").build()));
    assertEquals(Status.Code.PERMISSION_DENIED, denied.getCode(), denied.toString());
    assertTrue(
        denied.getDescription().contains("coflow.master.auth.operatorTokenFile"),
        denied.toString());
    HttpClient http = HttpClient.newHttpClient();
    URI policy = URI.create("http://127.0.0.1:" + server.httpPort() + "/api/policy");
    HttpResponse<String> refused =
        http.send(post(policy, TOKEN), HttpResponse.BodyHandlers.ofString());
    assertEquals(401, refused.statusCode(), refused.body());
    assertTrue(refused.body().contains("coflow.master.auth.operatorTokenFile"), refused.body());
    assertEquals("aalo", server.service().policy().name(), "the agents' token switched the policy");

    // The operators' token does, over gRPC and HTTP.
    io.grpc.Channel asOperator =
        ClientInterceptors.intercept(ch, BearerToken.clientInterceptor(operator));
    AdminServiceGrpc.newBlockingStub(asOperator)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .setPolicy(SetPolicyRequest.newBuilder().setName("varys").build());
    assertEquals("varys", server.service().policy().name());
    HttpResponse<String> ok =
        http.send(post(policy, operator), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, ok.statusCode(), ok.body());
  }

  /** A same-origin JSON POST of {@code {"name": "fair"}} with {@code token}. */
  private HttpRequest post(URI uri, String token) {
    return HttpRequest.newBuilder(uri)
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + token)
        .header("Origin", "http://127.0.0.1:" + server.httpPort())
        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"fair\"}"))
        .build();
  }

  @Test
  void theMasterRefusesToStartExposedOrWithASharedToken() throws Exception {
    Path token = TestCerts.tokenFile(dir, TOKEN);
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> start(Config.defaults().with(MasterConfig.TOKEN_FILE, token.toString())));
    assertTrue(e.getMessage().contains("chmod 600 " + token), e.getMessage());

    Path shortToken = TestCerts.tokenFile(Files.createDirectory(dir.resolve("short")), "short");
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> start(Config.defaults().with(MasterConfig.TOKEN_FILE, shortToken.toString())));
    assertTrue(e.getMessage().contains("openssl rand -hex 32"), e.getMessage());

    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                MasterServer.start(
                    Config.defaults()
                        .with(MasterConfig.HOST, "0.0.0.0")
                        .with(MasterConfig.PORT, 0)
                        .with(MasterConfig.HTTP_PORT, -1),
                    null));
    assertTrue(
        e.getMessage().contains("coflow.master.auth.tokenFile")
            && e.getMessage().contains("coflow.master.insecure=true"),
        e.getMessage());

    TestCerts.Pem cert = TestCerts.selfSigned(dir, "master");
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                start(Config.defaults().with(MasterConfig.TLS_CERT_FILE, cert.cert().toString())));
    assertTrue(e.getMessage().contains("coflow.master.tls.keyFile"), e.getMessage());
  }

  private static void await(Supplier<Boolean> condition, String message) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.get()) {
      assertTrue(System.nanoTime() < deadline, message);
      Thread.sleep(10);
    }
  }
}
