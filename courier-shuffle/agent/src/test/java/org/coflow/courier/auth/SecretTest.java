package org.coflow.courier.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.junit.jupiter.api.Test;

class SecretTest {
  @Test
  void handshakeProofsUseASlowlyDerivedKeyNotTheSecretItself() throws Exception {
    byte[] raw = "a secret of the cluster, long enough".getBytes(StandardCharsets.UTF_8);
    Secret s = Secret.of(raw, "test");
    byte[] k = s.proofKey();
    assertFalse(Arrays.equals(raw, k), "an offline guess must not be checkable with one HMAC");
    char[] chars = new String(raw, StandardCharsets.ISO_8859_1).toCharArray();
    byte[] expected =
        SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
            .generateSecret(
                new PBEKeySpec(
                    chars,
                    "coflow courier handshake proof key".getBytes(StandardCharsets.US_ASCII),
                    Secret.DERIVATION_ITERATIONS,
                    256))
            .getEncoded();
    assertArrayEquals(expected, k, "the derivation docs/protocol.md describes");
    assertTrue(Secret.DERIVATION_ITERATIONS >= 1 << 14);
  }

  @Test
  void plainlyGuessableSecretsAreRefused() {
    for (String weak :
        new String[] {
          "password12345678",
          "correcthorsebatterystaple",
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        }) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> Secret.requireStrong(weak.getBytes(StandardCharsets.UTF_8), "secret file F"));
      assertTrue(e.getMessage().contains("coflow secret"), e.getMessage());
    }
    // What `bin/coflow secret` makes (base64 of 32 random bytes), and 32 hex digits, pass.
    Secret.requireStrong("q3Jp0Yk2cX1vTtL9mZs8WgB4nHdE7aR6uFoIyV5bCw0=".getBytes(), "b64");
    Secret.requireStrong("3f9a1c07be52d4e8a6b0c1d2e3f40516".getBytes(), "hex");
  }
}
