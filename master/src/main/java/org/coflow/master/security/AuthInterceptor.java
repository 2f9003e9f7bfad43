package org.coflow.master.security;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.coflow.api.security.BearerToken;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs before every call of every service: checks the bearer token (when the master has one) and
 * establishes the {@link Caller}. A call without a valid token ends with UNAUTHENTICATED before any
 * service sees it. The operators' token, when the master has one, is valid too and makes the caller
 * an operator.
 */
final class AuthInterceptor implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(AuthInterceptor.class);
  private static final long WARN_EVERY_NANOS = 10_000_000_000L;

  private final String token;
  private final String operatorToken;
  private final AtomicLong lastWarn = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
  private final AtomicLong refused = new AtomicLong();

  /**
   * @param token the shared token, or null when calls carry none
   * @param operatorToken the operators' token, or null when every caller is an operator
   */
  AuthInterceptor(String token, String operatorToken) {
    this.token = token;
    this.operatorToken = operatorToken;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    String address = remote == null ? "unknown" : remote.toString();
    boolean local = false;
    if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
      address = inet.getAddress().getHostAddress();
      local = inet.getAddress().isLoopbackAddress();
    }
    String presented = headers.get(BearerToken.AUTHORIZATION);
    boolean operator = operatorToken != null && BearerToken.matches(operatorToken, presented);
    if (token != null && !operator && !BearerToken.matches(token, presented)) {
      String why =
          presented == null
              ? "the call carries no token, and this master requires one: give the client the "
                  + "token in coflow.master.auth.tokenFile (MasterClientOptions.token)"
              : "the call's bearer token does not match this master's "
                  + "coflow.master.auth.tokenFile";
      refuse(call, address, why);
      return new ServerCall.Listener<>() {};
    }
    String certificate = subject(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    String identity =
        certificate != null
            ? "cert:" + certificate
            : operator ? "operator" : token != null ? "token" : "anonymous";
    Caller caller =
        new Caller(
            identity, certificate != null, operator || operatorToken == null, address, local);
    return Contexts.interceptCall(
        Context.current().withValue(Caller.KEY, caller), call, headers, next);
  }

  private void refuse(ServerCall<?, ?> call, String address, String why) {
    long n = refused.incrementAndGet();
    long now = System.nanoTime();
    long last = lastWarn.get();
    // Refusals are logged at most every 10 s: an attacker must not be able to flood the log.
    if (now - last >= WARN_EVERY_NANOS && lastWarn.compareAndSet(last, now)) {
      LOG.warn(
          "refused unauthenticated call {} from {}: {} ({} refused so far)",
          call.getMethodDescriptor().getFullMethodName(),
          address,
          why,
          n);
    }
    call.close(Status.UNAUTHENTICATED.withDescription(why), new Metadata());
  }

  /** Calls refused for a missing or wrong token so far. */
  long refused() {
    return refused.get();
  }

  private static String subject(SSLSession session) {
    if (session == null) {
      return null;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
        return x.getSubjectX500Principal().getName();
      }
    } catch (SSLPeerUnverifiedException e) {
      // No client certificate: the identity is the token's, or none.
    }
    return null;
  }
}
