package org.coflow.courier.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A shared secret that proves membership: a cluster secret, a Spark application's secret or a
 * MapReduce job's token password. It is only ever used as an HMAC key; it never goes on the wire
 * and is never printed ({@link #toString} hides it).
 */
public final class Secret {
  /** Fewer bytes than this are too easy to guess. */
  public static final int MIN_BYTES = 16;

  private final byte[] key;

  private Secret(byte[] key) {
    this.key = key.clone();
  }

  /**
   * @throws IllegalArgumentException for a secret shorter than {@link #MIN_BYTES}
   */
  public static Secret of(byte[] key, String what) {
    if (key == null || key.length < MIN_BYTES) {
      throw new IllegalArgumentException(
          what
              + " has "
              + (key == null ? 0 : key.length)
              + " bytes; a secret needs at least "
              + MIN_BYTES
              + " (e.g. `head -c 32 /dev/urandom | base64 > FILE; chmod 600 FILE`)");
    }
    return new Secret(key);
  }

  /**
   * A secret an engine made (a MapReduce job's shuffle key, which Hadoop generates with 64 bits):
   * its strength is the engine's; at least 8 bytes.
   *
   * @throws IllegalArgumentException for a shorter one
   */
  public static Secret ofEngine(byte[] key, String what) {
    if (key == null || key.length < 8) {
      throw new IllegalArgumentException(
          what + " has " + (key == null ? 0 : key.length) + " bytes; at least 8 are needed");
    }
    return new Secret(key);
  }

  /**
   * The secret in {@code file} (its bytes, surrounding whitespace trimmed). The file must be
   * readable by its owner only: a secret others can read proves nothing.
   *
   * @throws IllegalArgumentException naming the file and what to do
   */
  public static Secret fromFile(Path file, String key) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          key + ": secret file " + file + " does not exist or is not a regular file");
    }
    // The one check of a secret file's permissions, shared with the master's token files.
    org.coflow.api.security.SecretFile.requirePrivate(file, key);
    try {
      byte[] raw = Files.readAllBytes(file);
      byte[] secret =
          new String(raw, java.nio.charset.StandardCharsets.UTF_8)
              .strip()
              .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      String what = key + ": secret file " + file;
      Secret s = of(secret, what);
      requireStrong(secret, what);
      return s;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          key + ": cannot read secret file " + file + ": " + e.getMessage(), e);
    }
  }

  /** The least estimated strength of a cluster secret, in bits. */
  public static final int MIN_BITS = 128;

  /**
   * Refuses a secret that is plainly guessable: its length times the bits per character of the
   * character classes it uses (lower case, upper case, digits, other printable, other bytes) under
   * {@link #MIN_BITS}, or fewer than 10 distinct bytes. A words-and-digits phrase of 16 characters
   * (82 bits at most) fails, as do repeated patterns; 32 random bytes in base64 or hex pass. It is
   * an upper bound on the secret's randomness, so it only ever refuses weak secrets; a passing one
   * may still be weak, which is why {@code bin/coflow secret} makes them from the system's random
   * source.
   */
  static void requireStrong(byte[] key, String what) {
    boolean lower = false, upper = false, digit = false, printable = false, other = false;
    boolean[] seen = new boolean[256];
    int distinct = 0;
    for (byte b : key) {
      int c = b & 0xff;
      if (!seen[c]) {
        seen[c] = true;
        distinct++;
      }
      if (c >= 'a' && c <= 'z') {
        lower = true;
      } else if (c >= 'A' && c <= 'Z') {
        upper = true;
      } else if (c >= '0' && c <= '9') {
        digit = true;
      } else if (c >= 0x20 && c < 0x7f) {
        printable = true;
      } else {
        other = true;
      }
    }
    int alphabet =
        (lower ? 26 : 0)
            + (upper ? 26 : 0)
            + (digit ? 10 : 0)
            + (printable ? 33 : 0)
            + (other ? 161 : 0);
    double bits = key.length * (Math.log(Math.max(alphabet, 1)) / Math.log(2));
    if (bits < MIN_BITS || distinct < 10) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "%s is too easy to guess (at most %.0f bits from its %d characters, %d of them"
                  + " distinct; at least %d bits are needed): make one with `bin/coflow secret"
                  + " --out FILE`",
              what,
              bits,
              key.length,
              distinct,
              MIN_BITS));
    }
  }

  /** A fresh random secret of 32 bytes (one process's own, never written anywhere). */
  public static Secret random() {
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    return new Secret(key);
  }

  byte[] key() {
    return key;
  }

  /**
   * Iterations of the derivation of {@link #proofKey}: each guess at a secret costs an attacker
   * this many HMACs (about 35 ms here), once per process for its holders.
   */
  static final int DERIVATION_ITERATIONS = 1 << 14;

  private static final byte[] DERIVATION_SALT =
      "coflow courier handshake proof key".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private volatile byte[] proofKey;

  /**
   * The key the handshake's proofs are made with: PBKDF2-HMAC-SHA256 of the secret. The side that
   * proves first (the acceptor) hands a stranger who names an identity a proof it could test
   * guesses against offline; the derivation makes every guess cost {@link #DERIVATION_ITERATIONS}
   * HMACs, on top of the minimum strength a secret file must have.
   */
  byte[] proofKey() {
    byte[] k = proofKey;
    if (k == null) {
      char[] chars = new char[key.length];
      for (int i = 0; i < key.length; i++) {
        chars[i] = (char) (key[i] & 0xff);
      }
      try {
        k =
            javax.crypto.SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                .generateSecret(
                    new javax.crypto.spec.PBEKeySpec(
                        chars, DERIVATION_SALT, DERIVATION_ITERATIONS, 256))
                .getEncoded();
      } catch (java.security.GeneralSecurityException e) {
        throw new IllegalStateException("PBKDF2WithHmacSHA256 is part of every Java runtime", e);
      } finally {
        java.util.Arrays.fill(chars, '\0');
      }
      proofKey = k;
    }
    return k;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secret && java.security.MessageDigest.isEqual(key, ((Secret) o).key);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(key);
  }

  @Override
  public String toString() {
    return "Secret[" + key.length + " bytes]";
  }
}
