package org.coflow.courier.auth;

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
 * Both cover both nonces, both host ids, the role and the identity, under a label that tells the
 * acceptor's proof from the connecting side's, so neither can be replayed on another connection,
 * reflected back, or moved to another host id.
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

  /** The accepting side's proof for {@code hello}, answered with {@code nonce} as {@code host}. */
  public static byte[] server(Secret secret, Hello hello, byte[] nonce, String host) {
    return mac(
        secret,
        "courier-v2 server",
        hello.getNonce().toByteArray(),
        nonce,
        host,
        hello.getHostId(),
        hello.getRoleValue(),
        hello.getIdentity());
  }

  /** The connecting side's proof, after a challenge of {@code nonce} from {@code host}. */
  public static byte[] client(Secret secret, Hello hello, byte[] nonce, String host) {
    return mac(
        secret,
        "courier-v2 client",
        hello.getNonce().toByteArray(),
        nonce,
        hello.getHostId(),
        host,
        hello.getRoleValue(),
        hello.getIdentity());
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
      String identity) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
      update(mac, label.getBytes(StandardCharsets.UTF_8));
      update(mac, first);
      update(mac, second);
      update(mac, hostA.getBytes(StandardCharsets.UTF_8));
      update(mac, hostB.getBytes(StandardCharsets.UTF_8));
      mac.update(ByteBuffer.allocate(4).putInt(0, role));
      update(mac, identity.getBytes(StandardCharsets.UTF_8));
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
