package org.coflow.api.client;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * How a {@link MasterClient} reaches the master and presents its host. Defaults: reports at the
 * master's interval, unary calls time out after 5 s, reconnection backoff from 100 ms doubling up
 * to 5 s, keepalive pings every 10 s, plaintext without a token ({@link MasterCredentials#none()}).
 * A master that authenticates its callers needs {@link #token} (and {@link #tls} when it serves
 * TLS), or {@link #credentials} built elsewhere.
 */
public final class MasterClientOptions {
  private final String target;
  private final String hostId;
  private String dataAddress = "";
  private String engineAddress = "";
  private double uplink;
  private double downlink;
  private Map<String, String> labels = Map.of();
  private boolean sharedHost;
  private long reportIntervalMillis;
  private long callTimeoutMillis = 5_000;
  private long initialBackoffMillis = 100;
  private long maxBackoffMillis = 5_000;
  private long keepaliveMillis = 10_000;
  private int maxMessageBytes = 32 << 20;
  private ScheduledExecutorService scheduler;
  private ThreadFactory channelThreads;
  private MasterCredentials credentials = MasterCredentials.none();

  /**
   * @param target the master, as {@code host:port}
   * @param hostId the host this agent is the Courier of
   */
  public MasterClientOptions(String target, String hostId) {
    if (target == null || target.isEmpty()) {
      throw new IllegalArgumentException("the master's address is empty: give it as host:port");
    }
    if (hostId == null || hostId.isEmpty()) {
      throw new IllegalArgumentException("the agent's host id is empty");
    }
    this.target = target;
    this.hostId = hostId;
  }

  public MasterClientOptions addresses(String dataAddress, String engineAddress) {
    this.dataAddress = dataAddress;
    this.engineAddress = engineAddress;
    return this;
  }

  /** Declared capacities in bytes/s; 0 leaves them to the master's default. */
  public MasterClientOptions capacity(double uplinkBytesPerSec, double downlinkBytesPerSec) {
    this.uplink = uplinkBytesPerSec;
    this.downlink = downlinkBytesPerSec;
    return this;
  }

  public MasterClientOptions labels(Map<String, String> labels) {
    this.labels = Map.copyOf(labels);
    return this;
  }

  /**
   * Opens a shared-host session (default false): one of several processes of one host, each
   * reporting the flows it sends (the coda-agent: one session per JVM). Shared sessions share the
   * host id with each other, never with an exclusive session (a Courier agent); they get only
   * per-flow schedules, and FindAgent does not return them.
   */
  public MasterClientOptions sharedHost(boolean sharedHost) {
    this.sharedHost = sharedHost;
    return this;
  }

  /** Report every {@code millis}; 0 (the default) uses the master's scheduling interval. */
  public MasterClientOptions reportInterval(long millis) {
    this.reportIntervalMillis = millis;
    return this;
  }

  public MasterClientOptions callTimeout(long millis) {
    this.callTimeoutMillis = millis;
    return this;
  }

  public MasterClientOptions backoff(long initialMillis, long maxMillis) {
    if (initialMillis <= 0 || maxMillis < initialMillis) {
      throw new IllegalArgumentException(
          "backoff needs 0 < initial <= max, got " + initialMillis + " and " + maxMillis);
    }
    this.initialBackoffMillis = initialMillis;
    this.maxBackoffMillis = maxMillis;
    return this;
  }

  public MasterClientOptions keepalive(long millis) {
    this.keepaliveMillis = millis;
    return this;
  }

  /**
   * Sends {@code token} (the master's {@code coflow.master.auth.tokenFile}) with every call.
   *
   * @throws IllegalArgumentException for a token of under 16 characters or with characters a header
   *     cannot carry
   */
  public MasterClientOptions token(String token) {
    this.credentials = credentials.withToken(token);
    return this;
  }

  /** Connects with TLS, trusting the master whose certificate {@code trustCertPem} signed. */
  public MasterClientOptions tls(Path trustCertPem) {
    this.credentials = credentials.withTls(trustCertPem);
    return this;
  }

  /** Presents this client certificate (PEM; key in PKCS#8 PEM) for mutual TLS. */
  public MasterClientOptions clientCertificate(Path certPem, Path keyPem) {
    this.credentials = credentials.withClientCertificate(certPem, keyPem);
    return this;
  }

  /** Replaces the token and TLS settings with {@code credentials}. */
  public MasterClientOptions credentials(MasterCredentials credentials) {
    if (credentials == null) {
      throw new IllegalArgumentException("credentials are null: use MasterCredentials.none()");
    }
    this.credentials = credentials;
    return this;
  }

  /** Runs the client's work on {@code scheduler} instead of a thread of its own. */
  public MasterClientOptions scheduler(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
    return this;
  }

  /**
   * Runs the channel's network I/O on one NIO event loop thread made by {@code threads} (instead of
   * gRPC's shared transport threads): the coda-agent marks that thread so that its own traffic to
   * the master is never counted or paced.
   */
  public MasterClientOptions channelThreads(ThreadFactory threads) {
    this.channelThreads = threads;
    return this;
  }

  ThreadFactory channelThreads() {
    return channelThreads;
  }

  String target() {
    return target;
  }

  String hostId() {
    return hostId;
  }

  String dataAddress() {
    return dataAddress;
  }

  String engineAddress() {
    return engineAddress;
  }

  double uplinkBytesPerSec() {
    return uplink;
  }

  double downlinkBytesPerSec() {
    return downlink;
  }

  Map<String, String> labels() {
    return labels;
  }

  boolean sharedHost() {
    return sharedHost;
  }

  long reportIntervalMillis() {
    return reportIntervalMillis;
  }

  long callTimeoutMillis() {
    return callTimeoutMillis;
  }

  long initialBackoffMillis() {
    return initialBackoffMillis;
  }

  long maxBackoffMillis() {
    return maxBackoffMillis;
  }

  long keepaliveMillis() {
    return keepaliveMillis;
  }

  int maxMessageBytes() {
    return maxMessageBytes;
  }

  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  MasterCredentials credentials() {
    return credentials;
  }
}
