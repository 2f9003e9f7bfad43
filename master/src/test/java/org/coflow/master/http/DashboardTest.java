package org.coflow.master.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.proto.v1.CoflowServiceGrpc;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP side: JSON API, metrics, policy switching, and the page in a real headless Chromium. */
class DashboardTest {
  private static final String COFLOW = "app-20261122-0001/shuffle-7";

  private MasterServer server;
  private MasterClient agent;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    server =
        MasterServer.start(
            Config.defaults()
                .with(PolicyConfig.DELTA_MS, 20L)
                .with(MasterConfig.PORT, 0)
                .with(MasterConfig.HTTP_PORT, 0)
                .with(MasterConfig.HOST, "127.0.0.1"),
            null);
    var channel =
        io.grpc.ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      CoflowServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .registerCoflow(
              RegisterCoflowRequest.newBuilder().setCoflowId(COFLOW).setName("word count").build());
    } finally {
      channel.shutdownNow();
    }
    agent =
        new MasterClient(
            new MasterClientOptions("127.0.0.1:" + server.port(), "exec-1")
                .addresses("127.0.0.1:7337", "BlockManagerId(1, 127.0.0.1, 40001)"),
            u -> {});
    agent.start();
    agent.updateFlow(
        1,
        FlowSpec.newBuilder().setCoflowId(COFLOW).setSrcHost("exec-1").setDstHost("exec-2").build(),
        1 << 20,
        3 << 20);
    agent.updateFlow(
        2,
        FlowSpec.newBuilder().setCoflowId(COFLOW).setSrcHost("exec-1").setDstHost("exec-3").build(),
        0,
        1 << 20);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (server.service().activeFlows() < 2) {
      assertTrue(System.nanoTime() < deadline, "the flows never reached the master");
      Thread.sleep(10);
    }
  }

  @AfterEach
  void stop() throws Exception {
    agent.close();
    server.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String json) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void jsonApiAndMetrics() throws Exception {
    HttpResponse<String> state = get("/api/state");
    assertEquals(200, state.statusCode());
    assertTrue(
        state.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
    String body = state.body();
    for (String expected :
        new String[] {
          "\"policy\":\"aalo\"",
          "\"intervalMs\":20",
          "\"id\":\"" + COFLOW + "\"",
          "\"name\":\"word count\"",
          "\"hostId\":\"exec-1\"",
          "\"engineAddress\":\"BlockManagerId(1, 127.0.0.1, 40001)\"",
          "\"width\":2",
          "\"dst\":\"exec-3\"",
          "\"rate\":"
        }) {
      assertTrue(body.contains(expected), "/api/state lacks " + expected + ": " + body);
    }
    assertTrue(get("/api/state?maxFlows=0").body().contains("\"flowsOmitted\":2"));
    HttpResponse<String> bad = get("/api/state?maxFlows=lots");
    assertEquals(400, bad.statusCode());
    assertTrue(bad.body().contains("lots"));

    String metrics = get("/metrics").body();
    for (String name :
        new String[] {
          "coflow_master_decision_seconds_bucket",
          "coflow_master_decision_seconds_count",
          "coflow_master_flows 2",
          "coflow_master_coflows 1",
          "coflow_master_agents 1",
          "coflow_master_pushed_updates_total",
          "coflow_master_policy_info{policy=\"aalo\""
        }) {
      assertTrue(metrics.contains(name), "/metrics lacks " + name + ":\n" + metrics);
    }
    assertEquals(404, get("/nothing-here").statusCode());
    assertEquals(405, post("/metrics", "").statusCode());
  }

  @Test
  void policyCanBeSwitchedOverHttp() throws Exception {
    HttpResponse<String> bad = post("/api/policy", "{\"name\": \"quickest\"}");
    assertEquals(400, bad.statusCode());
    assertTrue(bad.body().contains("quickest") && bad.body().contains("varys"), bad.body());
    assertEquals(400, post("/api/policy", "").statusCode());
    assertEquals(400, post("/api/policy", "{\"policy\": \"varys\"}").statusCode());
    HttpResponse<String> ok = post("/api/policy", "{\"name\": \"varys\"}");
    assertEquals(200, ok.statusCode());
    assertTrue(ok.body().contains("\"policy\":\"varys\""), ok.body());
    assertEquals("varys", server.service().policy().name());
  }

  @Test
  void pageShowsTheRegisteredCoflowInHeadlessChromium(@TempDir Path tmp) throws Exception {
    String chromium = chromium();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + tmp.resolve("profile"),
                "--virtual-time-budget=5000",
                "--dump-dom",
                "http://127.0.0.1:" + server.httpPort() + "/"));
    Path out = tmp.resolve("dom.html");
    Process p =
        new ProcessBuilder(cmd)
            .redirectOutput(out.toFile())
            .redirectError(tmp.resolve("chromium.log").toFile())
            .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "chromium did not finish within 60 s");
    String dom = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(
        0, p.exitValue(), "chromium failed: " + Files.readString(tmp.resolve("chromium.log")));
    int table = dom.indexOf("id=\"coflows\"");
    assertTrue(table >= 0, "the page has no coflow table: " + dom);
    String coflows = dom.substring(table, dom.indexOf("</table>", table));
    assertTrue(
        coflows.contains(COFLOW), "the coflow table does not show " + COFLOW + ": " + coflows);
    assertTrue(coflows.contains("word count"), coflows);
    assertTrue(dom.contains("exec-1"), "the page does not list the agent");
    assertTrue(
        dom.contains("<option value=\"aalo\">") || dom.contains("value=\"aalo\""),
        "the policy selector was not filled: " + dom);
  }

  private static String chromium() {
    String env = System.getenv("CHROMIUM");
    for (String candidate : new String[] {env, "/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
      if (candidate != null && new File(candidate).canExecute()) {
        return candidate;
      }
    }
    throw new AssertionError(
        "headless Chromium is needed for the dashboard test: install Debian's "
            + "'chromium' package (.ci/run does) or point CHROMIUM at the binary");
  }
}
