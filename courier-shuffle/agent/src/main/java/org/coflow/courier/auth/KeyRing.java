package org.coflow.courier.auth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secrets an agent accepts proofs of, by identity, and whether it admits peers that prove
 * nothing. An agent started without any secret is <em>open</em> (every peer is admitted, as
 * anonymous, and the agent says so loudly at start-up); one started with a secret admits only peers
 * that prove one of its identities. Identities may come and go while it runs (a NodeManager adds
 * each MapReduce job's token when the job starts and removes it when it ends). Thread-safe.
 */
public final class KeyRing {
  private final Map<String, Secret> secrets = new ConcurrentHashMap<>();

  /** Identities that may only connect as local clients, never as another host's agent. */
  private final java.util.Set<String> clientsOnly = ConcurrentHashMap.newKeySet();

  private final boolean open;

  /** An open ring still refuses local clients that prove nothing (see {@link #ownClientsOnly}). */
  private volatile boolean anonymousClients = true;

  private KeyRing(boolean open) {
    this.open = open;
  }

  /** A ring that admits unauthenticated peers (no secret configured). */
  public static KeyRing open() {
    return new KeyRing(true);
  }

  /** A ring that admits only peers proving one of its identities. */
  public static KeyRing closed() {
    return new KeyRing(false);
  }

  /** Accept proofs of {@code secret} as {@code identity}. */
  public KeyRing add(String identity, Secret secret) {
    secret.proofKey(); // derived now, not inside a peer's handshake time
    secrets.put(identity, secret);
    return this;
  }

  /**
   * Accept proofs of {@code secret} as {@code identity} from local clients only (a MapReduce job's
   * token: its reduce tasks are tenant code, never another host's agent).
   */
  public KeyRing addClient(String identity, Secret secret) {
    secret.proofKey(); // derived now, not inside a peer's handshake time
    clientsOnly.add(identity);
    secrets.put(identity, secret);
    return this;
  }

  public void remove(String identity) {
    secrets.remove(identity);
    clientsOnly.remove(identity);
  }

  /** Whether a peer proving {@code identity} may act as another host's agent. */
  public boolean mayBeAgent(String identity) {
    return !clientsOnly.contains(identity);
  }

  /** The secret of {@code identity}, or null if this ring accepts no proof of it. */
  public Secret find(String identity) {
    return identity == null || identity.isEmpty() ? null : secrets.get(identity);
  }

  /** Whether peers that prove nothing are admitted (as anonymous). */
  public boolean isOpen() {
    return open;
  }

  /**
   * Admits as local clients only those proving {@code secret} as {@code identity}, even where the
   * ring is open to other hosts' agents: an agent embedded in a process without a cluster or
   * application secret serves anyone its files, as the engine's own server would, but fetches only
   * for its own process, so nobody else can fetch under its host's name or use it to reach other
   * hosts.
   */
  public KeyRing ownClientsOnly(String identity, Secret secret) {
    addClient(identity, secret);
    return refuseAnonymousClients();
  }

  /**
   * Admits as local clients only those proving a secret the ring holds, even where it is open to
   * other hosts' agents (a NodeManager's agent without a cluster secret: its clients are the jobs'
   * reducers, which prove their job's token).
   */
  public KeyRing refuseAnonymousClients() {
    anonymousClients = false;
    return this;
  }

  /** Whether a local client that proves nothing is admitted (on an open ring). */
  public boolean admitsAnonymousClients() {
    return open && anonymousClients;
  }
}
