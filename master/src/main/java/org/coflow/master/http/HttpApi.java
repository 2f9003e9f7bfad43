package org.coflow.master.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.coflow.master.policy.Policies;
import org.coflow.master.policy.SchedulingPolicy;
import org.coflow.master.service.MasterService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's HTTP side: the dashboard page ({@code /}), the JSON API behind it ({@code
 * /api/state}, {@code /api/policy}) and Prometheus metrics ({@code /metrics}).
 *
 * <p>{@code /api/state?maxFlows=N} lists at most N flows per coflow (default 1000). {@code POST
 * /api/policy} with the form field {@code name} switches the policy.
 */
public final class HttpApi {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final int DEFAULT_MAX_FLOWS = 1000;
  private static final int MAX_BODY = 4096;

  private final HttpServer server;
  private final ExecutorService executor;

  private HttpApi(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  public static HttpApi start(MasterService master, String host, int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 64);
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "coflow-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", ex -> handle(ex, () -> page(ex)));
    server.createContext("/api/state", ex -> handle(ex, () -> state(ex, master)));
    server.createContext("/api/policy", ex -> handle(ex, () -> policy(ex, master)));
    server.createContext(
        "/metrics",
        ex ->
            handle(
                ex,
                () -> {
                  requireGet(ex);
                  send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", master.prometheus());
                }));
    server.start();
    return new HttpApi(server, executor);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public void stop(int delaySeconds) {
    server.stop(delaySeconds);
    executor.shutdownNow();
  }

  private interface Handler {
    void run() throws IOException;
  }

  /** A request the client got wrong: answered with its status and message. */
  private static final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    HttpError(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  private static void handle(HttpExchange ex, Handler h) {
    try (ex) {
      try {
        h.run();
      } catch (HttpError e) {
        send(ex, e.status, "text/plain; charset=utf-8", e.getMessage() + "\n");
      } catch (RuntimeException e) {
        LOG.error("HTTP {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
        send(ex, 500, "text/plain; charset=utf-8", "internal error: " + e.getMessage() + "\n");
      }
    } catch (IOException e) {
      LOG.debug("HTTP client went away: {}", e.toString());
    }
  }

  private static void page(HttpExchange ex) throws IOException {
    requireGet(ex);
    String path = ex.getRequestURI().getPath();
    if (!path.equals("/") && !path.equals("/index.html")) {
      throw new HttpError(
          404, "no such page: " + path + " (try /, /api/state, /api/policy, /metrics)");
    }
    try (InputStream in = HttpApi.class.getResourceAsStream("dashboard.html")) {
      if (in == null) {
        throw new IllegalStateException("dashboard.html is missing from the master's jar");
      }
      send(
          ex,
          200,
          "text/html; charset=utf-8",
          new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static void state(HttpExchange ex, MasterService master) throws IOException {
    requireGet(ex);
    Map<String, String> q = params(ex.getRequestURI().getRawQuery());
    int maxFlows = DEFAULT_MAX_FLOWS;
    if (q.containsKey("maxFlows")) {
      try {
        maxFlows = Integer.parseInt(q.get("maxFlows"));
      } catch (NumberFormatException e) {
        maxFlows = -1;
      }
      if (maxFlows < 0) {
        throw new HttpError(
            400, "maxFlows must be a non-negative integer, got '" + q.get("maxFlows") + "'");
      }
    }
    send(ex, 200, "application/json", StateJson.render(master.snapshot(maxFlows)));
  }

  private static void policy(HttpExchange ex, MasterService master) throws IOException {
    SchedulingPolicy p = master.policy();
    if (ex.getRequestMethod().equals("POST")) {
      byte[] body = ex.getRequestBody().readNBytes(MAX_BODY + 1);
      if (body.length > MAX_BODY) {
        throw new HttpError(413, "request body over " + MAX_BODY + " bytes");
      }
      String name = params(new String(body, StandardCharsets.UTF_8).trim()).get("name");
      if (name == null || name.isEmpty()) {
        throw new HttpError(
            400,
            "POST /api/policy needs the form field name, e.g. name=varys; "
                + "valid policies: "
                + String.join(", ", Policies.NAMES));
      }
      try {
        p = master.setPolicy(name);
      } catch (IllegalArgumentException e) {
        throw new HttpError(400, e.getMessage());
      }
      LOG.info("policy set to {} over HTTP from {}", name, ex.getRemoteAddress());
    } else {
      requireGet(ex);
    }
    StringBuilder sb = new StringBuilder();
    JsonWriter w = new JsonWriter(sb);
    w.beginObject()
        .name("policy")
        .value(p.name())
        .name("type")
        .value(p.type().name())
        .name("intervalMs")
        .value(master.intervalMillis())
        .name("available")
        .beginArray();
    for (String n : Policies.NAMES) {
      w.value(n);
    }
    w.endArray().endObject();
    send(ex, 200, "application/json", sb.toString());
  }

  private static void requireGet(HttpExchange ex) {
    if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
      throw new HttpError(
          405, ex.getRequestMethod() + " is not allowed on " + ex.getRequestURI().getPath());
    }
  }

  private static Map<String, String> params(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      String k = eq < 0 ? part : part.substring(0, eq);
      String v = eq < 0 ? "" : part.substring(eq + 1);
      try {
        out.put(
            URLDecoder.decode(k, StandardCharsets.UTF_8),
            URLDecoder.decode(v, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw new HttpError(400, "malformed query or form field '" + part + "'");
      }
    }
    return out;
  }

  private static void send(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
