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
      return of(
          new String(raw, java.nio.charset.StandardCharsets.UTF_8)
              .strip()
              .getBytes(java.nio.charset.StandardCharsets.UTF_8),
          key + ": secret file " + file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          key + ": cannot read secret file " + file + ": " + e.getMessage(), e);
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
