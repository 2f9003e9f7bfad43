package org.coflow.master;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.coflow.core.config.Config;
import org.coflow.core.identify.CoflowIdentifier;
import org.coflow.master.http.HttpApi;
import org.coflow.master.security.ServerSecurity;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running master: {@link MasterService} behind a Netty gRPC server, plus the HTTP dashboard, JSON
 * API and metrics ({@code http}, which sits on top of {@code service}: this class wires the two, so
 * that neither imports the other's side). {@link #close()} shuts down gracefully: it stops taking
 * calls, lets in-flight unary calls finish (a few seconds at most), ends agents' streams and the
 * loop.
 */
public final class MasterServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MasterServer.class);

  private final MasterService service;
  private final Server grpc;
  private final HttpApi http;

  private MasterServer(MasterService service, Server grpc, HttpApi http) {
    this.service = service;
    this.grpc = grpc;
    this.http = http;
  }

  /**
   * Binds and starts everything. A master without authentication (no token, no client certificates)
   * binds to loopback only unless {@code coflow.master.insecure=true}.
   *
   * @throws IOException if a port cannot be bound (the message names it)
   * @throws IllegalArgumentException for a configuration the master cannot run with: unreadable or
   *     shared secret files, incomplete TLS, or an exposed address without authentication
   */
  public static MasterServer start(Config config, CoflowIdentifier identifier) throws IOException {
    String host = config.get(MasterConfig.HOST);
    ServerSecurity security =
        ServerSecurity.from(
            new ServerSecurity.Settings(
                config.get(MasterConfig.TOKEN_FILE),
                config.get(MasterConfig.OPERATOR_TOKEN_FILE),
                config.get(MasterConfig.TLS_CERT_FILE),
                config.get(MasterConfig.TLS_KEY_FILE),
                config.get(MasterConfig.TLS_CLIENT_CA_FILE),
                config.get(MasterConfig.INSECURE)));
    security.checkExposure(host);
    MasterService service =
        identifier == null ? new MasterService(config) : new MasterService(config, identifier);
    int port = config.get(MasterConfig.PORT);
    long keepalive = config.get(MasterConfig.KEEPALIVE_MS);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
            .maxInboundMessageSize((int) (long) config.get(MasterConfig.MAX_MESSAGE_BYTES))
            .keepAliveTime(keepalive, TimeUnit.MILLISECONDS)
            .keepAliveTimeout(keepalive, TimeUnit.MILLISECONDS)
            .permitKeepAliveTime(Math.min(keepalive, 5_000), TimeUnit.MILLISECONDS)
            .permitKeepAliveWithoutCalls(true);
    for (BindableService s : service.services()) {
      builder.addService(s);
    }
    security.apply(builder);
    Server grpc = builder.build();
    try {
      grpc.start();
    } catch (IOException e) {
      throw new IOException(
          "cannot listen for gRPC on "
              + host
              + ":"
              + port
              + " ("
              + e.getMessage()
              + "): choose another --port or coflow.master.port",
          e);
    }
    HttpApi http = null;
    int httpPort = config.get(MasterConfig.HTTP_PORT);
    if (httpPort >= 0) {
      try {
        http = HttpApi.start(service, config, security);
      } catch (IOException e) {
        grpc.shutdownNow();
        throw new IOException(
            "cannot listen for HTTP on "
                + host
                + ":"
                + httpPort
                + " ("
                + e.getMessage()
                + "): choose another --http-port or coflow.master.http.port",
            e);
      }
    }
    service.start();
    String exposure = security.describe(host);
    if (security.authenticates()) {
      LOG.info("master security: {}", exposure);
    } else {
      LOG.warn("master security: {}", exposure);
    }
    LOG.info(
        "master {} listening: grpc={}:{} http={} policy={} interval={}ms",
        service.masterId(),
        host,
        grpc.getPort(),
        http == null ? "off" : host + ":" + http.port(),
        service.policy().name(),
        service.intervalMillis());
    return new MasterServer(service, grpc, http);
  }

  public MasterService service() {
    return service;
  }

  /** The bound gRPC port. */
  public int port() {
    return grpc.getPort();
  }

  /** The bound HTTP port, or -1 when HTTP is off. */
  public int httpPort() {
    return http == null ? -1 : http.port();
  }

  /** Abrupt stop, as a crash would (tests of agents' reconnection). */
  public void kill() throws InterruptedException {
    grpc.shutdownNow();
    if (http != null) {
      http.stop(0);
    }
    service.close();
    grpc.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    grpc.shutdown();
    // Agents' streams never end on their own: give unary calls a moment, then cancel the rest.
    if (!grpc.awaitTermination(1, TimeUnit.SECONDS)) {
      grpc.shutdownNow();
      grpc.awaitTermination(2, TimeUnit.SECONDS);
    }
    if (http != null) {
      http.stop(1);
    }
    service.close();
    LOG.info("master {} stopped", service.masterId());
  }
}
