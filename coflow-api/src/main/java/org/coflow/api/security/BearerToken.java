package org.coflow.api.security;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The control plane's shared-token scheme: every call carries {@code authorization: Bearer <token>}
 * metadata (RFC 6750's header, as gRPC servers commonly read it), and the master compares it in
 * constant time. A token is 16 to 4096 visible ASCII characters, e.g. {@code openssl rand -hex 32}.
 */
public final class BearerToken {
  /** The metadata key (and HTTP header) carrying the token. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** What precedes the token in the header's value. */
  public static final String SCHEME = "Bearer ";

  static final int MIN_LENGTH = 16;
  static final int MAX_LENGTH = 4096;

  private BearerToken() {}

  /**
   * Returns {@code token} if it can be one.
   *
   * @throws IllegalArgumentException for a token too short or long, or with characters a header
   *     cannot carry
   */
  public static String check(String token) {
    if (token == null || token.length() < MIN_LENGTH || token.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "a token must have "
              + MIN_LENGTH
              + " to "
              + MAX_LENGTH
              + " characters, got "
              + (token == null ? "none" : token.length())
              + ": generate one with openssl rand -hex 32");
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new IllegalArgumentException(
            "a token must be visible ASCII characters without spaces, found character code "
                + (int) c
                + " at position "
                + i
                + ": generate one with openssl rand -hex 32");
      }
    }
    return token;
  }

  /**
   * Whether {@code presented} (a header's whole value, or null) is {@code "Bearer " + expected}.
   * Both sides are hashed first, so the comparison takes the same time whatever the inputs.
   */
  public static boolean matches(String expected, String presented) {
    if (presented == null || !presented.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return false;
    }
    String given = presented.substring(SCHEME.length()).trim();
    return MessageDigest.isEqual(sha256(expected), sha256(given));
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** A client interceptor that adds the token to every call. */
  public static ClientInterceptor clientInterceptor(String token) {
    String value = SCHEME + check(token);
    return new ClientInterceptor() {
      @Override
      public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
          MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(
            next.newCall(method, options)) {
          @Override
          public void start(Listener<RespT> listener, Metadata headers) {
            headers.put(AUTHORIZATION, value);
            super.start(listener, headers);
          }
        };
      }
    };
  }
}
