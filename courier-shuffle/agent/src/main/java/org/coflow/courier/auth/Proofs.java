package org.coflow.courier.auth;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.coflow.api.proto.courier.v1.Hello;

/**
 * The two HMAC-SHA256 proofs of the Courier handshake ({@code courier.proto}: Challenge, Auth).
 * Both cover both nonces, both host ids, the role, the identity and the acceptor's address (IP and
 * port), under a label that tells the acceptor's proof from the connecting side's, so neither can
 * be replayed on another connection, reflected back, moved to another host id, or passed through by
 * a relay listening at another address.
 */
public final class Proofs {
  public static final int NONCE_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  private Proofs() {}

  public static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  /**
   * The accepting side's proof for {@code hello}, answered with {@code nonce} as {@code host} on a
   * connection accepted at {@code acceptor} (the socket's local address).
   */
  public static byte[] server(
      Secret secret, Hello hello, byte[] nonce, String host, InetSocketAddress acceptor) {
    return mac(
        secret,
        "courier-v2 server",
        hello.getNonce().toByteArray(),
        nonce,
        host,
        hello.getHostId(),
        hello.getRoleValue(),
        hello.getIdentity(),
        endpoint(acceptor));
  }

  /**
   * The connecting side's proof, after a challenge of {@code nonce} from {@code host}, on a
   * connection to {@code acceptor} (the address it dialled).
   */
  public static byte[] client(
      Secret secret, Hello hello, byte[] nonce, String host, InetSocketAddress acceptor) {
    return mac(
        secret,
        "courier-v2 client",
        hello.getNonce().toByteArray(),
        nonce,
        hello.getHostId(),
        host,
        hello.getRoleValue(),
        hello.getIdentity(),
        endpoint(acceptor));
  }

  /**
   * The acceptor's address as both ends see it (IP and port): binds the proofs to the connection,
   * so a relay at another address that passes the handshake through is refused by both ends.
   */
  static String endpoint(InetSocketAddress a) {
    java.net.InetAddress ip = a.getAddress();
    if (ip instanceof java.net.Inet6Address) {
      byte[] b = ip.getAddress();
      boolean mapped = true;
      for (int i = 0; i < 10; i++) {
        mapped &= b[i] == 0;
      }
      if (mapped && b[10] == (byte) 0xff && b[11] == (byte) 0xff) {
        try {
          ip = java.net.InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16));
        } catch (java.net.UnknownHostException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return (ip == null ? a.getHostString() : ip.getHostAddress()) + ":" + a.getPort();
  }

  /** Constant-time comparison. */
  public static boolean matches(byte[] expected, byte[] actual) {
    return MessageDigest.isEqual(expected, actual);
  }

  private static byte[] mac(
      Secret secret,
      String label,
      byte[] first,
      byte[] second,
      String hostA,
      String hostB,
      int role,
      String identity,
      String acceptor) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.proofKey(), "HmacSHA256"));
      update(mac, label.getBytes(StandardCharsets.UTF_8));
      update(mac, first);
      update(mac, second);
      update(mac, hostA.getBytes(StandardCharsets.UTF_8));
      update(mac, hostB.getBytes(StandardCharsets.UTF_8));
      mac.update(ByteBuffer.allocate(4).putInt(0, role));
      update(mac, identity.getBytes(StandardCharsets.UTF_8));
      update(mac, acceptor.getBytes(StandardCharsets.UTF_8));
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  private static void update(Mac mac, byte[] bytes) {
    mac.update(ByteBuffer.allocate(4).putInt(0, bytes.length));
    mac.update(bytes);
  }
}
