package org.coflow.master.security;

import io.grpc.Context;

/**
 * Who made the current gRPC call, as the master's authentication established it: an identity (a
 * client certificate's subject, else one name shared by every token holder or every caller) and the
 * network address it came from. The service reads it to bind a host id to the session that owns it
 * and to count sessions per caller.
 */
public final class Caller {
  static final Context.Key<Caller> KEY = Context.key("coflow-caller");

  /** A call that no interceptor saw: in-process, in tests. */
  public static final Caller LOCAL = new Caller("anonymous", false, true, "in-process", true);

  private final String identity;
  private final boolean certified;
  private final boolean operator;
  private final String address;
  private final boolean local;

  Caller(String identity, boolean certified, boolean operator, String address, boolean local) {
    this.identity = identity;
    this.certified = certified;
    this.operator = operator;
    this.address = address;
    this.local = local;
  }

  /** The caller of the call this thread serves. */
  public static Caller current() {
    Caller c = KEY.get();
    return c == null ? LOCAL : c;
  }

  /** {@code cert:<subject>} for a client certificate, {@code token} or {@code anonymous}. */
  public String identity() {
    return identity;
  }

  /**
   * Whether the identity belongs to this caller alone (a client certificate), so that it proves who
   * owns a host; a shared token or no authentication proves nothing between callers.
   */
  public boolean certified() {
    return certified;
  }

  /**
   * Whether the caller may switch the policy: it carries the operators' token, or the master has
   * none ({@code coflow.master.auth.operatorTokenFile}).
   */
  public boolean operator() {
    return operator;
  }

  /** The caller's network address (no port). */
  public String address() {
    return address;
  }

  /** On the master's own machine (loopback) or in-process. */
  public boolean local() {
    return local;
  }

  /** The key sessions are counted by: the identity from one address. */
  public String peerKey() {
    return identity + "@" + address;
  }

  /** For log lines: a certificate's subject is the peer's choice, so it is escaped. */
  @Override
  public String toString() {
    return Printable.of(identity) + " from " + address;
  }
}
