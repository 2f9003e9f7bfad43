package org.coflow.courier.auth;

import java.util.Objects;

/**
 * What a connecting side proves: an identity (whose secret it holds, see {@code Hello.identity})
 * and that secret. {@link #NONE} connects without proving anything, which only an agent without
 * secrets accepts.
 */
public final class Credentials {
  public static final Credentials NONE = new Credentials("", null);

  /** The identity of a cluster secret (standalone agents, NodeManagers). */
  public static final String CLUSTER = "cluster";

  /** The identity of an embedded agent's own process, proving a secret only that process holds. */
  public static final String PROCESS = "process";

  private final String identity;
  private final Secret secret;

  private Credentials(String identity, Secret secret) {
    this.identity = identity;
    this.secret = secret;
  }

  public static Credentials of(String identity, Secret secret) {
    if (identity == null || identity.isEmpty() || identity.length() > 256) {
      throw new IllegalArgumentException(
          "an identity is 1 to 256 characters, got '" + identity + "'");
    }
    secret.proofKey(); // derived now, not inside the handshake's time
    return new Credentials(identity, Objects.requireNonNull(secret));
  }

  /** The identity of Spark application {@code appId}'s secret. */
  public static String spark(String appId) {
    return "spark:" + appId;
  }

  /** The identity of MapReduce job {@code jobId}'s token. */
  public static String mapReduce(String jobId) {
    return "mr:" + jobId;
  }

  public String identity() {
    return identity;
  }

  /** Null for {@link #NONE}. */
  public Secret secret() {
    return secret;
  }

  public boolean present() {
    return secret != null;
  }

  @Override
  public String toString() {
    return present() ? "Credentials[" + identity + "]" : "Credentials[none]";
  }
}
