package org.coflow.master.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The attacks demonstrated against the master's HTTP side, over real connections: slow requests
 * must not starve the dashboard, and a browser on another origin must not switch the policy.
 */
class HttpAttackTest {
  private MasterServer server;
  private final List<Socket> slow = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private void start(Config extra) throws Exception {
    server =
        MasterServer.start(
            extra
                .with(MasterConfig.HOST, "127.0.0.1")
                .with(MasterConfig.PORT, 0)
                .with(MasterConfig.HTTP_PORT, 0)
                .with(PolicyConfig.DELTA_MS, 20L),
            null);
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket s : slow) {
      s.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.httpPort() + path);
  }

  /** Opens a connection that sends {@code head} and then nothing more. */
  private void openSlow(String head) throws Exception {
    Socket s = new Socket("127.0.0.1", server.httpPort());
    slow.add(s);
    OutputStream out = s.getOutputStream();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  @Test
  void slowRequestsDoNotStarveGets() throws Exception {
    start(Config.defaults().with(MasterConfig.HTTP_READ_TIMEOUT_MS, 1000L));
    String host = "127.0.0.1:" + server.httpPort();
    for (int i = 0; i < 12; i++) {
      // Headers sent, the promised body never comes.
      openSlow(
          "POST /api/policy HTTP/1.1\r\nHost: "
              + host
              + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
      // Headers never finished.
      openSlow("GET /api/state HTTP/1.1\r\nHost: " + host + "\r\nX-Slow: ");
    }
    long t0 = System.nanoTime();
    HttpResponse<String> state =
        http.send(
            HttpRequest.newBuilder(uri("/api/state")).timeout(Duration.ofSeconds(8)).build(),
            HttpResponse.BodyHandlers.ofString());
    long millis = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(200, state.statusCode());
    assertTrue(millis < 8000, "GET took " + millis + " ms behind slow requests");
  }

  @Test
  void halfRequestLinesDoNotStallGets() throws Exception {
    start(Config.defaults());
    for (int i = 0; i < 32; i++) {
      openSlow("GET /api/sta");
    }
    for (int i = 0; i < 8; i++) {
      openSlow("");
    }
    Thread.sleep(300);
    long t0 = System.nanoTime();
    HttpResponse<String> state =
        http.send(
            HttpRequest.newBuilder(uri("/api/state")).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    long millis = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(200, state.statusCode());
    // The read timeout is 5 s: a GET queued behind the silent connections would wait that long.
    assertTrue(millis < 2000, "GET took " + millis + " ms behind 40 silent connections");
  }

  @Test
  void everyRequestMustNameTheMasterInItsHost() throws Exception {
    start(Config.defaults().with(MasterConfig.HTTP_ALLOWED_HOSTS, "Dash.Example.org, other"));
    int port = server.httpPort();
    String before = server.service().policy().name();
    // DNS rebinding: the attacker's name, now resolving to 127.0.0.1, read from its own page.
    for (String request :
        new String[] {
          "GET /api/state", "GET /metrics", "GET /", "HEAD /api/policy", "POST /api/policy"
        }) {
      String r = raw(request, "rebound.evil.example:" + port);
      assertTrue(r.startsWith("HTTP/1.1 421 "), request + ": " + r);
      assertTrue(
          request.startsWith("HEAD") || r.contains("coflow.master.http.allowedHosts"),
          request + ": " + r);
    }
    assertEquals(before, server.service().policy().name());
    String hostname = InetAddress.getLocalHost().getHostName();
    for (String host :
        new String[] {
          "127.0.0.1:" + port,
          "localhost:" + port,
          "LOCALHOST",
          "[::1]:" + port,
          "dash.example.org:" + port,
          "other",
          hostname + ":" + port
        }) {
      String r = raw("GET /api/state", host);
      assertTrue(r.startsWith("HTTP/1.1 200 "), host + ": " + r);
    }
  }

  /** Sends a request line with {@code host} as its Host header; returns the whole response. */
  private String raw(String requestLine, String host) throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
      s.setSoTimeout(5000);
      String body = requestLine.startsWith("POST") ? "{\"name\": \"varys\"}" : "";
      s.getOutputStream()
          .write(
              (requestLine
                      + " HTTP/1.1\r\nHost: "
                      + host
                      + "\r\nContent-Type: application/json\r\nContent-Length: "
                      + body.length()
                      + "\r\nConnection: close\r\n\r\n"
                      + body)
                  .getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aCrossOriginSimpleRequestCannotSwitchThePolicy() throws Exception {
    start(Config.defaults());
    String before = server.service().policy().name();
    // What a page on another site can send without a CORS preflight.
    for (String type :
        new String[] {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"}) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(uri("/api/policy"))
                  .header("Content-Type", type)
                  .header("Origin", "http://evil.example")
                  .POST(HttpRequest.BodyPublishers.ofString("name=varys"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(403, r.statusCode(), type + ": " + r.body());
    }
    // Same origin but not JSON: refused too, since a form can send it.
    HttpResponse<String> form =
        http.send(
            HttpRequest.newBuilder(uri("/api/policy"))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("name=varys"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(415, form.statusCode(), form.body());
    assertEquals(before, server.service().policy().name(), "the policy was switched");
  }
}
