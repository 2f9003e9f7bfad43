package org.coflow.api.client;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import org.coflow.api.security.BearerToken;
import org.coflow.api.security.SecretFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a client proves itself to the master and checks the master: a shared token (sent as {@code
 * authorization: Bearer} metadata on every call), TLS with the certificate (or CA) that signed the
 * master's, and optionally a client certificate (mutual TLS). Immutable; {@link #none()} is
 * plaintext without a token, what a master on loopback without authentication expects.
 *
 * <p>Every client of the master ({@link MasterClient}, {@link CoflowRegistrar}) builds its channel
 * through this one class.
 */
public final class MasterCredentials {
  private static final Logger LOG = LoggerFactory.getLogger(MasterCredentials.class);
  private static final MasterCredentials NONE = new MasterCredentials(null, null, null, null);

  private final String token;
  private final Path trustCert;
  private final Path clientCert;
  private final Path clientKey;

  private MasterCredentials(String token, Path trustCert, Path clientCert, Path clientKey) {
    this.token = token;
    this.trustCert = trustCert;
    this.clientCert = clientCert;
    this.clientKey = clientKey;
  }

  /** Plaintext, no token. */
  public static MasterCredentials none() {
    return NONE;
  }

  /**
   * Credentials from settings where an empty string means "not set", the shape engine and agent
   * configurations have.
   *
   * @param tokenFile a file holding the token (private to its owner), or empty
   * @param trustCertPem the PEM certificate or CA that signed the master's, or empty for plaintext
   * @param clientCertPem with {@code clientKeyPem}: this client's certificate for mutual TLS, or
   *     empty
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static MasterCredentials fromFiles(
      String tokenFile, String trustCertPem, String clientCertPem, String clientKeyPem) {
    MasterCredentials c = NONE;
    if (!tokenFile.isEmpty()) {
      c = c.withToken(SecretFile.readToken(Path.of(tokenFile), "token file"));
    }
    if (!trustCertPem.isEmpty()) {
      c = c.withTls(Path.of(trustCertPem));
    }
    if (!clientCertPem.isEmpty() || !clientKeyPem.isEmpty()) {
      if (clientCertPem.isEmpty() || clientKeyPem.isEmpty()) {
        throw new IllegalArgumentException(
            "a client certificate needs both its certificate and its key file, got '"
                + clientCertPem
                + "' and '"
                + clientKeyPem
                + "'");
      }
      c = c.withClientCertificate(Path.of(clientCertPem), Path.of(clientKeyPem));
    }
    return c;
  }

  /**
   * Sends {@code token} with every call.
   *
   * @throws IllegalArgumentException for a token of under 16 characters or with characters a header
   *     cannot carry
   */
  public MasterCredentials withToken(String token) {
    return new MasterCredentials(BearerToken.check(token), trustCert, clientCert, clientKey);
  }

  /** Connects with TLS and trusts the master whose certificate {@code trustCertPem} signed. */
  public MasterCredentials withTls(Path trustCertPem) {
    return new MasterCredentials(token, require(trustCertPem, "TLS trust"), clientCert, clientKey);
  }

  /** Presents this certificate (PEM, key in PKCS#8 PEM) for mutual TLS; needs {@link #withTls}. */
  public MasterCredentials withClientCertificate(Path certPem, Path keyPem) {
    return new MasterCredentials(
        token, trustCert, require(certPem, "client certificate"), require(keyPem, "client key"));
  }

  public boolean hasToken() {
    return token != null;
  }

  public boolean usesTls() {
    return trustCert != null;
  }

  private static Path require(Path p, String what) {
    if (p == null) {
      throw new IllegalArgumentException("the " + what + " file is missing");
    }
    return p;
  }

  /**
   * Applies these credentials to a channel to {@code target}.
   *
   * @throws IllegalArgumentException if a certificate or key cannot be read, naming the file
   */
  NettyChannelBuilder apply(NettyChannelBuilder builder, String target) {
    if (clientCert != null && trustCert == null) {
      throw new IllegalArgumentException(
          "a client certificate ("
              + clientCert
              + ") is only sent over TLS: give the master's trusted certificate too");
    }
    if (trustCert == null) {
      builder.usePlaintext();
      if (token != null && !onLoopback(target)) {
        LOG.warn(
            "the token for the coflow master at {} travels in plaintext: give the client the "
                + "master's certificate (TLS) so that the network cannot read it",
            target);
      }
    } else {
      try {
        SslContextBuilder ssl = GrpcSslContexts.forClient().trustManager(trustCert.toFile());
        if (clientCert != null) {
          ssl.keyManager(clientCert.toFile(), clientKey.toFile());
        }
        builder.useTransportSecurity().sslContext(ssl.build());
      } catch (IOException | IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "cannot use the TLS files (trust "
                + trustCert
                + (clientCert == null
                    ? ""
                    : ", client certificate " + clientCert + ", key " + clientKey)
                + ") for the coflow master: "
                + e.getMessage()
                + "; they must be PEM (the key PKCS#8)",
            e);
      }
    }
    if (token != null) {
      builder.intercept(BearerToken.clientInterceptor(token));
    }
    return builder;
  }

  private static boolean onLoopback(String target) {
    int colon = target.lastIndexOf(':');
    String host = colon < 0 ? target : target.substring(0, colon);
    host = host.replace("[", "").replace("]", "");
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException | SecurityException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return (trustCert == null ? "plaintext" : clientCert == null ? "TLS" : "mutual TLS")
        + (token == null ? "" : " with a token");
  }
}
