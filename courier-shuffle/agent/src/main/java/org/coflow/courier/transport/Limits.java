package org.coflow.courier.transport;

/**
 * The bounds of what peers can make an agent hold (docs/security.md), from the registry ({@code
 * coflow.courier.max*}, {@code coflow.courier.*Timeout}). Refusing at a bound is a retryable {@code
 * BUSY} error, never an out-of-memory error or a stuck event loop.
 */
public final class Limits {
  /** Frames before the handshake completes (HELLO, AUTH) are at most this long. */
  public static final int HANDSHAKE_FRAME = 16 << 10;

  /** What tests and tools get when they set nothing: generous, but bounded. */
  public static final Limits DEFAULTS =
      new Limits(4096, 256, 64, 1024, 64L << 20, 5_000, 1_800_000);

  private final int maxConnections;
  private final int maxHandshaking;
  private final int maxHandshakingPerAddress;
  private final int maxStreamsPerConnection;
  private final long maxBufferedBytes;
  private final long handshakeTimeoutMillis;
  private final long idleTimeoutMillis;

  /**
   * @param maxConnections accepted connections open at once
   * @param maxHandshaking accepted connections that have not completed their handshake
   * @param maxHandshakingPerAddress of those, from one remote address
   * @param maxStreamsPerConnection blocks one connection may have in flight at once
   * @param maxBufferedBytes bytes of incomplete frames all accepted connections together may hold
   * @param handshakeTimeoutMillis time from accept to a completed handshake
   * @param idleTimeoutMillis time a connection without open streams may stay silent (0: forever)
   */
  public Limits(
      int maxConnections,
      int maxHandshaking,
      int maxHandshakingPerAddress,
      int maxStreamsPerConnection,
      long maxBufferedBytes,
      long handshakeTimeoutMillis,
      long idleTimeoutMillis) {
    this.maxConnections = maxConnections;
    this.maxHandshaking = maxHandshaking;
    this.maxHandshakingPerAddress = maxHandshakingPerAddress;
    this.maxStreamsPerConnection = maxStreamsPerConnection;
    this.maxBufferedBytes = maxBufferedBytes;
    this.handshakeTimeoutMillis = handshakeTimeoutMillis;
    this.idleTimeoutMillis = idleTimeoutMillis;
  }

  /**
   * The accepted connections an agent may hold in a process allowed {@code descriptors} open files
   * (negative: unknown): at most half of them, leaving the rest to its own connections to other
   * agents, the files it serves and the host process; otherwise a crowd of idle connections would
   * exhaust the process's descriptors before the bound refused any.
   */
  public static int withinDescriptors(int configured, long descriptors) {
    if (descriptors <= 0) {
      return configured;
    }
    return (int) Math.max(1, Math.min(configured, descriptors / 2));
  }

  /** The process's limit on open file descriptors, or -1 where the platform does not say. */
  public static long maxFileDescriptors() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.UnixOperatingSystemMXBean
        ? ((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount()
        : -1;
  }

  public int maxConnections() {
    return maxConnections;
  }

  public int maxHandshaking() {
    return maxHandshaking;
  }

  public int maxHandshakingPerAddress() {
    return maxHandshakingPerAddress;
  }

  public int maxStreamsPerConnection() {
    return maxStreamsPerConnection;
  }

  public long maxBufferedBytes() {
    return maxBufferedBytes;
  }

  public long handshakeTimeoutMillis() {
    return handshakeTimeoutMillis;
  }

  public long idleTimeoutMillis() {
    return idleTimeoutMillis;
  }
}
