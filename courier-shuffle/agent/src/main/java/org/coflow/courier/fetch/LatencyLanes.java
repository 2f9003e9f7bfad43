package org.coflow.courier.fetch;

import java.util.HashMap;
import java.util.Map;
import org.coflow.courier.flow.FlowKey;
import org.coflow.courier.metrics.DataPlaneMetrics;

/**
 * The latency lanes of a {@link FetchService}: one more connection per peer, outside the MaxNum
 * budget, for each flow's first bytes (a flow: a coflow's blocks from one host, counted from when
 * it was last idle), so that small coflows and new flows wait neither for a connection nor behind
 * the bytes the bulk connections already queued. Blocks larger than the lane's bytes always go
 * bulk. A lane that cannot be opened is no failure: its blocks go bulk (where a peer that cannot be
 * reached fails them), and it is not tried again for a while. Guarded by the service's lock.
 */
final class LatencyLanes {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LatencyLanes.class);

  /** A lane that could not be opened is not tried again for this long. */
  private static final long RETRY_NANOS = 1_000_000_000L;

  /** The service holding the lanes; its lock guards them. */
  private final FetchService service;

  private final DataPlaneMetrics metrics;

  /** Each flow's first bytes that go on its peer's lane; 0: no lane. */
  private long bytes;

  /** Bytes each flow put on the lane since it was last idle. */
  private final Map<FlowKey, Long> used = new HashMap<>();

  /** Lanes open or opening. */
  private int open;

  LatencyLanes(FetchService service, DataPlaneMetrics metrics) {
    this.service = service;
    this.metrics = metrics;
  }

  /** Sends each flow's first {@code bytes} on its peer's lane; 0: no lane. */
  void bytes(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("the lane's bytes must be zero or more, got " + bytes);
    }
    this.bytes = bytes;
  }

  /**
   * Whether a block of {@code size} bytes of flow {@code key} goes on {@code p}'s lane: its size is
   * known, the lane is on and usable, and the flow's bytes on the lane stay within it (counted if
   * so).
   */
  boolean admits(FlowKey key, FetchPeer p, long size) {
    if (bytes == 0 || size < 0 || size > bytes) {
      return false;
    }
    if (p.lane == null && !p.laneOpening && System.nanoTime() < p.laneRetryAt) {
      return false;
    }
    long before = used.getOrDefault(key, 0L);
    if (before + size > bytes) {
      return false;
    }
    used.put(key, before + size);
    return true;
  }

  /** The flow has nothing waiting or running: its next bytes are new. */
  void idle(FlowKey key) {
    used.remove(key);
  }

  /** Hands the lane's waiting blocks to the peer's lane, opening it first if needed. */
  void dispatch(FetchPeer p) {
    if (p.laneWaiting.isEmpty()) {
      return;
    }
    FetchPeer.Conn c = p.lane;
    if (c == null) {
      if (!p.laneOpening) {
        open(p);
      }
      return;
    }
    while (!p.laneWaiting.isEmpty()
        && c.connection.isOpen()
        && c.running < c.connection.maxStreams()) {
      metrics.laneStreams.increment();
      service.start(p, p.laneWaiting.poll(), c);
    }
  }

  private void open(FetchPeer p) {
    p.laneOpening = true;
    open++;
    service
        .openLane(p)
        .whenComplete(
            (conn, error) -> {
              synchronized (service) {
                p.laneOpening = false;
                if (error != null || service.isClosed()) {
                  open--;
                  if (conn != null) {
                    conn.close();
                  }
                  LOG.debug("no lane to remote={}: {}", p.host, String.valueOf(error));
                  p.laneRetryAt = System.nanoTime() + RETRY_NANOS;
                  for (FetchPeer.Block b; (b = p.laneWaiting.poll()) != null; ) {
                    b.sink.lane = false;
                    p.waiting.add(b);
                  }
                  service.replan();
                  return;
                }
                FetchPeer.Conn c = new FetchPeer.Conn();
                c.connection = conn;
                p.lane = c;
                conn.onClose(() -> closed(p, c));
                service.replan();
              }
            });
  }

  private void closed(FetchPeer p, FetchPeer.Conn c) {
    synchronized (service) {
      open--;
      if (p.lane == c) {
        p.lane = null; // reopened when a flow's first bytes need it
      }
      if (!p.laneWaiting.isEmpty() && !service.isClosed()) {
        service.replanLater();
      }
    }
  }

  /** Lanes open or opening now. */
  int count() {
    return open;
  }
}
