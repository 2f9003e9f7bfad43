package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.flow.FlowKey;
import org.coflow.courier.metrics.DataPlaneMetrics;
import org.coflow.courier.protocol.ProtocolException;

/**
 * A fetched block's sink as {@link FetchService} hands it to a connection: counts the block's bytes
 * into its flow and into the host's total, reports its end (completed or failed) to the service,
 * then passes everything on to the caller's sink.
 */
final class TrackedSink implements BlockSink {
  private final BlockSink sink;
  private final RemoteBlock block;
  private final FlowKey key;
  private final FlowTracker flows;
  private final LongAdder received;
  private final Runnable ended;
  private final DataPlaneMetrics metrics;

  /** When the block was requested, and whether a byte of it arrived yet. */
  private final long requested = System.nanoTime();

  private boolean begun;

  /** Whether the block goes on its peer's latency lane (its times are counted there too). */
  boolean lane;

  /**
   * @param key the block's flow (its coflow, from its source host)
   * @param ended called once the block completed or failed, before the caller's sink hears it
   */
  TrackedSink(
      BlockSink sink,
      RemoteBlock block,
      FlowKey key,
      FlowTracker flows,
      LongAdder received,
      DataPlaneMetrics metrics,
      Runnable ended) {
    this.sink = sink;
    this.block = block;
    this.key = key;
    this.flows = flows;
    this.received = received;
    this.ended = ended;
    this.metrics = metrics;
  }

  private void firstByte() {
    if (!begun) {
      begun = true;
      long t = System.nanoTime() - requested;
      metrics.firstByte.recordNanos(t);
      if (lane) {
        metrics.laneFirstByte.recordNanos(t);
      }
    }
  }

  @Override
  public void start(long length, long rawLength) throws IOException {
    if (block.getSize() < 0) {
      flows.learned(key, length);
    }
    sink.start(length, rawLength);
  }

  @Override
  public void write(ByteBuf data) throws IOException {
    firstByte();
    received.add(data.readableBytes());
    flows.received(key, data.readableBytes());
    sink.write(data);
  }

  @Override
  public void complete() throws IOException {
    firstByte();
    long t = System.nanoTime() - requested;
    metrics.fetchTime.recordNanos(t);
    if (lane) {
      metrics.laneFetchTime.recordNanos(t);
    }
    flows.ended(key);
    ended.run();
    sink.complete();
  }

  @Override
  public void fail(ProtocolException error) {
    flows.ended(key);
    ended.run();
    sink.fail(error);
  }
}
