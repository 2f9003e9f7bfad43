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
import org.coflow.core.config.Config;
import org.coflow.core.json.JsonWriter;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.master.security.Printable;
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
 * /api/policy} with the JSON body {@code {"name": "varys"}} switches the policy. Every request must
 * name the master in its {@code Host}, and every state-changing one passes the rest of the {@link
 * RequestGuard} (same origin, JSON, the token when the master has one).
 *
 * <p>Each request is read on a thread of its own under the deadlines of {@link DeadlineExecutor},
 * so slow clients hold neither a thread another request needs nor one for long; {@code
 * coflow.master.http.threads} of them compute responses at once. Bodies are read up to 4 KiB.
 */
public final class HttpApi {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final int DEFAULT_MAX_FLOWS = 1000;
  private static final int MAX_BODY = 4096;

  /** How many read timeouts a response may take to be computed and written. */
  private static final int RESPONSE_TIMEOUTS = 6;

  private final HttpServer server;
  private final DeadlineExecutor executor;
  private final RequestGuard guard;

  private HttpApi(HttpServer server, DeadlineExecutor executor, RequestGuard guard) {
    this.server = server;
    this.executor = executor;
    this.guard = guard;
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
            config.get(MasterConfig.HTTP_THREADS),
            config.get(MasterConfig.HTTP_MAX_REQUESTS),
            readTimeout,
            RESPONSE_TIMEOUTS * readTimeout);
    server.setExecutor(executor);
    HttpApi api =
        new HttpApi(
            server,
            executor,
            new RequestGuard(security, host, config.get(MasterConfig.HTTP_ALLOWED_HOSTS)));
    server.createContext("/", ex -> api.handle(ex, false, body -> page(ex)));
    server.createContext("/api/state", ex -> api.handle(ex, false, body -> state(ex, master)));
    server.createContext(
        "/api/policy", ex -> api.handle(ex, true, body -> policy(ex, body, master)));
    server.createContext(
        "/metrics",
        ex ->
            api.handle(
                ex,
                false,
                body ->
                    new Response(
                        200, "text/plain; version=0.0.4; charset=utf-8", master.prometheus())));
    server.start();
    return api;
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

  /** A response, computed before a byte of it is written. */
  private record Response(int status, String type, String body) {
    static Response text(int status, String message) {
      return new Response(status, "text/plain; charset=utf-8", message + "\n");
    }
  }

  private interface Handler {
    Response run(String body) throws IOException;
  }

  /**
   * Serves one exchange: reads the body, refuses a request whose Host is not the master's, a
   * state-changing request that the endpoint does not take ({@code changes} false: 405) or that the
   * guard refuses, then computes the response holding an HTTP thread and writes it.
   */
  private void handle(HttpExchange ex, boolean changes, Handler h) {
    try (ex) {
      Response r;
      try {
        String body = body(ex);
        DeadlineExecutor.requestRead();
        guard.checkHost(ex.getRequestHeaders());
        if (RequestGuard.changesState(ex.getRequestMethod())) {
          if (!changes) {
            requireGet(ex);
          } else {
            guard.check(
                ex.getRequestMethod(), ex.getRequestURI().getPath(), ex.getRequestHeaders());
          }
        }
        r = executor.compute(() -> h.run(body));
      } catch (HttpError e) {
        if (e.status == 401) {
          ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        }
        r = Response.text(e.status, e.getMessage());
      } catch (RuntimeException e) {
        LOG.error(
            "HTTP {} {} failed",
            Printable.of(ex.getRequestMethod(), 16),
            Printable.of(String.valueOf(ex.getRequestURI())),
            e);
        r = Response.text(500, "internal error: " + e.getMessage());
      }
      send(ex, r);
    } catch (IOException e) {
      LOG.debug("HTTP client went away: {}", Printable.of(e.toString()));
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

  private static Response page(HttpExchange ex) throws IOException {
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
      return new Response(
          200, "text/html; charset=utf-8", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static Response state(HttpExchange ex, MasterService master) {
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
    return new Response(200, "application/json", StateJson.render(master.snapshot(maxFlows)));
  }

  private static Response policy(HttpExchange ex, String body, MasterService master) {
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
    return new Response(200, "application/json", sb.toString());
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

  private static void send(HttpExchange ex, Response r) throws IOException {
    byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", r.type());
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(r.status(), head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
