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
import org.coflow.api.config.Config;
import org.coflow.master.policy.Policies;
import org.coflow.master.policy.SchedulingPolicy;
import org.coflow.master.security.ServerSecurity;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's HTTP side: the dashboard page ({@code /}), the JSON API behind it ({@code
 * /api/state}, {@code /api/policy}) and Prometheus metrics ({@code /metrics}).
 *
 * <p>{@code /api/state?maxFlows=N} lists at most N flows per coflow (default 1000). {@code POST
 * /api/policy} with the JSON body {@code {"name": "varys"}} switches the policy; like every
 * state-changing request it passes the {@link RequestGuard} first (same origin, JSON, the token
 * when the master has one).
 *
 * <p>Requests are served by {@code coflow.master.http.threads} threads, each exchange under the
 * deadlines of {@link DeadlineExecutor}, so slow clients cannot hold them; bodies are read up to 4
 * KiB.
 */
public final class HttpApi {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final int DEFAULT_MAX_FLOWS = 1000;
  private static final int MAX_BODY = 4096;

  /** How many read timeouts a response may take to be computed and written. */
  private static final int RESPONSE_TIMEOUTS = 6;

  private final HttpServer server;
  private final DeadlineExecutor executor;

  private HttpApi(HttpServer server, DeadlineExecutor executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Binds {@code coflow.master.host}:{@code coflow.master.http.port} and starts serving.
   *
   * @throws IOException if the port cannot be bound
   */
  public static HttpApi start(MasterService master, Config config, ServerSecurity security)
      throws IOException {
    String host = config.get(MasterConfig.HOST);
    long readTimeout = config.get(MasterConfig.HTTP_READ_TIMEOUT_MS);
    HttpServer server =
        HttpServer.create(new InetSocketAddress(host, config.get(MasterConfig.HTTP_PORT)), 64);
    DeadlineExecutor executor =
        new DeadlineExecutor(
            config.get(MasterConfig.HTTP_THREADS), readTimeout, RESPONSE_TIMEOUTS * readTimeout);
    server.setExecutor(executor);
    RequestGuard guard = new RequestGuard(security, host);
    server.createContext("/", ex -> handle(ex, null, body -> page(ex)));
    server.createContext("/api/state", ex -> handle(ex, null, body -> state(ex, master)));
    server.createContext("/api/policy", ex -> handle(ex, guard, body -> policy(ex, body, master)));
    server.createContext(
        "/metrics",
        ex ->
            handle(
                ex,
                null,
                body ->
                    send(
                        ex, 200, "text/plain; version=0.0.4; charset=utf-8", master.prometheus())));
    server.start();
    return new HttpApi(server, executor);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** Requests cut off because their client was too slow. */
  public long cutOffRequests() {
    return executor.cutOff();
  }

  public void stop(int delaySeconds) {
    server.stop(delaySeconds);
    executor.shutdownNow();
  }

  private interface Handler {
    void run(String body) throws IOException;
  }

  /**
   * Serves one exchange: reads the body, refuses a state-changing request that the endpoint does
   * not take (no {@code guard}: 405) or that the guard refuses, then runs the handler.
   */
  private static void handle(HttpExchange ex, RequestGuard guard, Handler h) {
    try (ex) {
      try {
        String body = body(ex);
        DeadlineExecutor.requestRead();
        if (RequestGuard.changesState(ex.getRequestMethod())) {
          if (guard == null) {
            requireGet(ex);
          } else {
            guard.check(
                ex.getRequestMethod(), ex.getRequestURI().getPath(), ex.getRequestHeaders());
          }
        }
        h.run(body);
      } catch (HttpError e) {
        if (e.status == 401) {
          ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        }
        send(ex, e.status, "text/plain; charset=utf-8", e.getMessage() + "\n");
      } catch (RuntimeException e) {
        LOG.error("HTTP {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
        send(ex, 500, "text/plain; charset=utf-8", "internal error: " + e.getMessage() + "\n");
      }
    } catch (IOException e) {
      LOG.debug("HTTP client went away: {}", e.toString());
    }
  }

  /** The request body, read whole up to {@link #MAX_BODY} bytes. */
  private static String body(HttpExchange ex) throws IOException {
    String length = ex.getRequestHeaders().getFirst("Content-Length");
    if (length != null) {
      long n;
      try {
        n = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        throw new HttpError(400, "Content-Length '" + length + "' is not a number");
      }
      if (n > MAX_BODY) {
        throw new HttpError(413, "request body of " + n + " bytes, over " + MAX_BODY);
      }
    }
    byte[] body = ex.getRequestBody().readNBytes(MAX_BODY + 1);
    if (body.length > MAX_BODY) {
      throw new HttpError(413, "request body over " + MAX_BODY + " bytes");
    }
    return new String(body, StandardCharsets.UTF_8);
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

  private static void policy(HttpExchange ex, String body, MasterService master)
      throws IOException {
    SchedulingPolicy p = master.policy();
    if (ex.getRequestMethod().equals("POST")) {
      String name;
      try {
        name = JsonFields.parse(body).get("name");
      } catch (IllegalArgumentException e) {
        throw new HttpError(400, "POST /api/policy: " + e.getMessage() + usage());
      }
      if (name == null || name.isEmpty()) {
        throw new HttpError(400, "POST /api/policy needs the field name" + usage());
      }
      try {
        p = master.setPolicy(name);
      } catch (IllegalArgumentException e) {
        throw new HttpError(400, e.getMessage());
      }
      LOG.info("policy set to {} over HTTP from {}", p.name(), ex.getRemoteAddress());
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

  private static String usage() {
    return ", e.g. {\"name\": \"varys\"}; valid policies: " + String.join(", ", Policies.NAMES);
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
