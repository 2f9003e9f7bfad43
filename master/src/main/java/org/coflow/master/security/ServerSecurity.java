package org.coflow.master.security;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import org.coflow.api.security.BearerToken;
import org.coflow.api.security.SecretFile;

/**
 * How the master authenticates its callers, from {@code coflow.master.auth.*} and {@code
 * coflow.master.tls.*}: the shared token every call must carry, TLS for gRPC, and client
 * certificates for mutual TLS. It also decides what a master without authentication may expose:
 * loopback only, unless {@code coflow.master.insecure=true} says otherwise.
 *
 * <p>Roles: with an operator token ({@code coflow.master.auth.operatorTokenFile}), only callers
 * that carry it are {@linkplain Caller#operator() operators}, who alone may switch the policy;
 * holders of the agents' token may do everything else. Without one, every admitted caller is an
 * operator.
 *
 * <p>The keys live in the master's registry ({@code MasterConfig}); this package takes their values
 * as {@link Settings} so that it depends on nothing else of the master.
 */
public final class ServerSecurity {
  static final String TOKEN_FILE = "coflow.master.auth.tokenFile";
  static final String OPERATOR_TOKEN_FILE = "coflow.master.auth.operatorTokenFile";
  static final String CERT_FILE = "coflow.master.tls.certFile";
  static final String KEY_FILE = "coflow.master.tls.keyFile";
  static final String CLIENT_CA_FILE = "coflow.master.tls.clientCaFile";
  static final String INSECURE = "coflow.master.insecure";
  static final String HOST = "coflow.master.host";

  /**
   * The values of the security keys; an empty string is "not set".
   *
   * @param tokenFile {@code coflow.master.auth.tokenFile}
   * @param operatorTokenFile {@code coflow.master.auth.operatorTokenFile}
   * @param certFile {@code coflow.master.tls.certFile}
   * @param keyFile {@code coflow.master.tls.keyFile}
   * @param clientCaFile {@code coflow.master.tls.clientCaFile}
   * @param insecure {@code coflow.master.insecure}
   */
  public record Settings(
      String tokenFile,
      String operatorTokenFile,
      String certFile,
      String keyFile,
      String clientCaFile,
      boolean insecure) {}

  private final String token;
  private final String operatorToken;
  private final SslContext ssl;
  private final boolean clientCertificates;
  private final boolean insecure;
  private final AuthInterceptor interceptor;

  private ServerSecurity(
      String token,
      String operatorToken,
      SslContext ssl,
      boolean clientCertificates,
      boolean insecure) {
    this.token = token;
    this.operatorToken = operatorToken;
    this.ssl = ssl;
    this.clientCertificates = clientCertificates;
    this.insecure = insecure;
    this.interceptor = new AuthInterceptor(token, operatorToken);
  }

  /**
   * Reads the token and TLS files the configuration names.
   *
   * @throws IllegalArgumentException naming the key, the file and what to do, for a missing or
   *     unreadable file, a secret open to group or others, or an incomplete TLS setup
   */
  public static ServerSecurity from(Settings settings) {
    String tokenFile = settings.tokenFile().trim();
    String token =
        tokenFile.isEmpty() ? null : SecretFile.readToken(Path.of(tokenFile), TOKEN_FILE);
    String operatorFile = settings.operatorTokenFile().trim();
    String operatorToken =
        operatorFile.isEmpty()
            ? null
            : SecretFile.readToken(Path.of(operatorFile), OPERATOR_TOKEN_FILE);
    if (operatorToken != null && operatorToken.equals(token)) {
      throw new IllegalArgumentException(
          OPERATOR_TOKEN_FILE
              + "="
              + operatorFile
              + " holds the same token as "
              + TOKEN_FILE
              + ": the operators' token must differ from the one every agent carries");
    }
    String cert = settings.certFile().trim();
    String key = settings.keyFile().trim();
    String clientCa = settings.clientCaFile().trim();
    if (cert.isEmpty() != key.isEmpty()) {
      throw new IllegalArgumentException(
          CERT_FILE
              + "='"
              + cert
              + "' and "
              + KEY_FILE
              + "='"
              + key
              + "': TLS needs both the certificate and its private key");
    }
    if (!clientCa.isEmpty() && cert.isEmpty()) {
      throw new IllegalArgumentException(
          CLIENT_CA_FILE
              + "="
              + clientCa
              + ": client certificates are checked only over TLS; set "
              + CERT_FILE
              + " and "
              + KEY_FILE
              + " too");
    }
    SslContext ssl = cert.isEmpty() ? null : ssl(cert, key, clientCa);
    return new ServerSecurity(token, operatorToken, ssl, !clientCa.isEmpty(), settings.insecure());
  }

  private static SslContext ssl(String cert, String key, String clientCa) {
    SecretFile.requirePrivate(Path.of(key), KEY_FILE);
    try {
      SslContextBuilder b = GrpcSslContexts.forServer(new File(cert), new File(key));
      if (!clientCa.isEmpty()) {
        b.trustManager(new File(clientCa)).clientAuth(ClientAuth.REQUIRE);
      }
      return b.build();
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "cannot use "
              + CERT_FILE
              + "="
              + cert
              + ", "
              + KEY_FILE
              + "="
              + key
              + (clientCa.isEmpty() ? "" : ", " + CLIENT_CA_FILE + "=" + clientCa)
              + " ("
              + e.getMessage()
              + "): they must be PEM files, the key unencrypted PKCS#8 (openssl pkcs8 -topk8 -nocrypt)",
          e);
    }
  }

  /** Whether callers must prove who they are (a token or a client certificate). */
  public boolean authenticates() {
    return token != null || clientCertificates;
  }

  /**
   * Whether a state-changing HTTP request's {@code Authorization} header value carries the token it
   * needs ({@link #httpTokenKey()}); true for any request when the master has no token.
   */
  public boolean allowsHttp(String authorization) {
    if (operatorToken != null) {
      return BearerToken.matches(operatorToken, authorization);
    }
    return token == null || BearerToken.matches(token, authorization);
  }

  /** The key of the token state-changing HTTP requests need: the operators' when there is one. */
  public String httpTokenKey() {
    return operatorToken != null ? OPERATOR_TOKEN_FILE : TOKEN_FILE;
  }

  /** Adds TLS and the authentication of every call to a server being built. */
  public void apply(NettyServerBuilder builder) {
    if (ssl != null) {
      builder.sslContext(ssl);
    }
    builder.intercept(interceptor);
  }

  /** Calls refused for a missing or wrong token so far. */
  public long refusedCalls() {
    return interceptor.refused();
  }

  /**
   * Refuses to expose a master without authentication beyond loopback, unless the configuration
   * says so explicitly.
   *
   * @throws IllegalArgumentException naming the address and the keys that would allow it
   */
  public void checkExposure(String host) {
    if (authenticates() || insecure || loopback(host)) {
      return;
    }
    throw new IllegalArgumentException(
        HOST
            + "="
            + host
            + " would expose the master's gRPC and HTTP ports to the network without "
            + "authentication, so anyone reaching them could impersonate agents and switch the "
            + "policy: set "
            + TOKEN_FILE
            + " (a file with a random token, chmod 600; clients pass it with "
            + "MasterClientOptions.token) and preferably "
            + CERT_FILE
            + "/"
            + KEY_FILE
            + ", or bind to 127.0.0.1, or set "
            + INSECURE
            + "=true to accept the risk");
  }

  /** Whether {@code host} binds to this machine's loopback only. */
  public static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** What the master exposes and how, for its start-up log. */
  public String describe(String host) {
    String grpc =
        (ssl == null ? "plaintext" : clientCertificates ? "mutual TLS" : "TLS")
            + (token != null ? " with a bearer token on every call" : "");
    if (!authenticates()) {
      grpc += ", NO AUTHENTICATION";
    }
    if (operatorToken != null) {
      grpc += "; only the operators' token may switch the policy";
    }
    String http =
        operatorToken != null || token != null
            ? "state-changing requests need the "
                + (operatorToken != null ? "operators' " : "")
                + "token; GET pages, state and metrics are open"
            : "NO AUTHENTICATION: same-origin JSON requests may switch the policy";
    String reach =
        loopback(host)
            ? "processes on this machine"
            : "anyone who can reach " + host + (authenticates() ? "" : " (coflow.master.insecure)");
    return "gRPC " + grpc + "; HTTP " + http + "; reachable by " + reach;
  }
}
