package org.coflow.coda.label;

import java.nio.ByteBuffer;

/**
 * Recovers a connection's true coflow from the requests it receives, where the engine's own
 * messages name it (the ground truth that {@code bench} measures identification against, and the
 * coflow id of {@code mode=labelled}). A connection's first bytes decide what it is:
 *
 * <ul>
 *   <li>an HTTP request: Hadoop's fetcher asking the ShuffleHandler for {@code
 *       /mapOutput?job=<job>&...}: the label is {@code mr:<job>};
 *   <li>a Spark transport frame (an 8-byte frame length, then a message type): an {@code
 *       RpcRequest} carrying {@code OpenBlocks} (block ids {@code
 *       shuffle_<shuffle>_<map>_<reduce>}) or {@code FetchShuffleBlocks} (a shuffle id) names
 *       {@code spark:<appId>:<shuffle>};
 *   <li>anything else (a response, data): the sniffer stops and costs nothing more.
 * </ul>
 *
 * Frames it does not need (chunk data, responses) are skipped by their length without being read,
 * so the side of a connection that receives shuffle data pays a few comparisons per read. Not
 * thread-safe: one reader per connection at a time.
 */
public final class Sniffer {
  private enum Kind {
    UNKNOWN,
    HTTP,
    SPARK,
    NONE
  }

  /**
   * Longest label kept: a longer one (a peer's made-up application id) is dropped, so that no
   * request a peer sends can make the agent's reports exceed the master's name limit (512).
   */
  static final int MAX_LABEL = 200;

  private Kind kind = Kind.UNKNOWN;
  private final SparkFrames spark = new SparkFrames();
  private final HttpRequests http = new HttpRequests();
  private final byte[] first = new byte[9];
  private int firstLen;
  private String label;

  /** The latest label read, or null. */
  public String label() {
    return label;
  }

  /** Whether the sniffer still reads this connection's bytes. */
  public boolean active() {
    return kind != Kind.NONE;
  }

  public void accept(ByteBuffer buf, int from, int n) {
    for (int i = 0; i < n && kind != Kind.NONE; ) {
      i += step(buf, null, from + i, n - i);
    }
  }

  public void accept(byte[] b, int off, int n) {
    for (int i = 0; i < n && kind != Kind.NONE; ) {
      i += step(null, b, off + i, n - i);
    }
  }

  /** Consumes some of the bytes; returns how many (at least one). */
  private int step(ByteBuffer buf, byte[] b, int at, int n) {
    switch (kind) {
      case UNKNOWN:
        int take = Math.min(n, first.length - firstLen);
        for (int i = 0; i < take; i++) {
          first[firstLen++] = buf != null ? buf.get(at + i) : b[at + i];
        }
        if (firstLen == first.length) {
          decide();
        }
        return take;
      case HTTP:
        int used = http.accept(buf, b, at, n);
        note(http.takeLabel());
        if (http.failed()) {
          kind = Kind.NONE;
        }
        return used;
      case SPARK:
        int consumed = spark.accept(buf, b, at, n);
        note(spark.takeLabel());
        if (spark.failed()) {
          kind = Kind.NONE;
        }
        return consumed;
      default:
        return n;
    }
  }

  private void decide() {
    if (HttpRequests.looksLikeRequest(first)) {
      kind = Kind.HTTP;
      http.accept(null, first, 0, first.length);
      note(http.takeLabel());
    } else if (SparkFrames.looksLikeFrame(first)) {
      kind = Kind.SPARK;
      spark.accept(null, first, 0, first.length);
      note(spark.takeLabel());
    } else {
      kind = Kind.NONE;
    }
  }

  private void note(String l) {
    if (l != null && l.length() <= MAX_LABEL) {
      label = l;
    }
  }
}
