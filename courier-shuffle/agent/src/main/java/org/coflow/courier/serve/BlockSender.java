package org.coflow.courier.serve;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.BlockRequest;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.Priority;
import org.coflow.courier.enforce.DestinationOrder;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.metrics.DataPlaneMetrics;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving end of a connection from another host's agent: answers each {@link BlockRequest} with
 * {@code BLOCK_START}, chunks sent zero-copy from the file (never more than the stream's credit
 * ahead of the requester, never while the channel's outbound buffer is full), then {@code
 * BLOCK_END} right behind the last chunk; or with {@code BLOCK_ERROR} when the block cannot be
 * served. Streams go in the order of {@link ReadyQueue}: by their coflow's priority (from the
 * request and later {@code PRIORITY} frames), coflows of equal priority sharing bytes, a reader's
 * blocks whole and in order; all within the host's {@link LinkRate}. A malformed request fails only
 * its stream; a protocol violation (a reused stream id) closes the connection.
 *
 * <p>One instance per channel; everything runs on the channel's event loop.
 */
public final class BlockSender extends SimpleChannelInboundHandler<Frame> {
  private static final Logger LOG = LoggerFactory.getLogger(BlockSender.class);

  private final BlockRegistry registry;
  private final int chunkSize;
  private final org.coflow.courier.enforce.PriorityPacer link;

  /** Open streams in the order they were requested (a priority change keeps a reader's order). */
  private final Map<Long, OutStream> streams = new java.util.LinkedHashMap<>();

  /**
   * Streams with something to send: by priority, then coflows sharing bytes in turn, then readers
   * in turn, each reader's blocks whole and in order.
   */
  private final ReadyQueue<OutStream> ready;

  private final Map<String, Integer> priorities = new HashMap<>();

  /** RATE policies: a token bucket per paced coflow on this connection. */
  /** Paces shared with the agent's other connections from the same host. */
  private final org.coflow.courier.enforce.PaceTable paces;

  /** Priority across this agent's connections to the same host. */
  private final DestinationOrder order;

  /** How another connection's change of priorities wakes this one (on its event loop). */
  private final Runnable wake;

  /** The fetching agent's host id (from its HELLO). */
  private final String dstHost;

  /** This is the host's latency lane: it goes first among equal priorities towards the host. */
  private final boolean lane;

  private final int maxStreams;

  private final DataPlaneMetrics metrics;

  private ChannelHandlerContext ctx;
  private boolean waitingForLink;

  /**
   * Chunk bytes written to the channel and not yet handed to the socket. Netty counts a file region
   * as zero bytes towards the channel's writability, so without this bound a stream's whole credit
   * (megabytes) would queue in the channel at once, and a more important stream's chunks would wait
   * behind all of it: priorities would act only at the start of a block.
   */
  private long unsent;

  /** The bound on {@link #unsent}: a few chunks, enough to keep the socket fed. */
  private final long maxUnsent;

  /** A pump is queued on the event loop (after a write completed). */
  private boolean pumpQueued;

  /** The connection closed: late timers and wake-ups do nothing. */
  private boolean removed;

  /**
   * When the pending pace timer fires (the paces' clock), Long.MAX_VALUE if none: a coflow that may
   * go sooner gets a timer of its own, so no coflow waits for a slower one's timer.
   */
  private long paceDeadline = Long.MAX_VALUE;

  /** A chunk's bytes were taken at the link for us while we waited in its queue. */
  private boolean prepaid;

  /**
   * @param unsentChunks the most chunks written to the channel and not yet handed to the socket
   * @param link the host's link rate all its sending connections share
   * @param lane the connection is the fetching host's latency lane: its coflows go least-served
   *     first, and its chunks go before the bulk connections' chunks of equal priority to that host
   */
  public BlockSender(
      BlockRegistry registry,
      int chunkSize,
      int unsentChunks,
      org.coflow.courier.enforce.PriorityPacer link,
      org.coflow.courier.enforce.PaceTable paces,
      DestinationOrder order,
      String dstHost,
      boolean lane,
      int maxStreams,
      DataPlaneMetrics metrics) {
    this.lane = lane;
    this.metrics = metrics;
    this.order = order;
    this.wake = () -> ctx.executor().execute(this::pump);
    this.maxStreams = maxStreams;
    this.maxUnsent = (long) unsentChunks * chunkSize;
    this.paces = paces;
    this.dstHost = dstHost;
    this.registry = registry;
    this.chunkSize = chunkSize;
    this.link = link;
    this.ready = new ReadyQueue<>(s -> s.priority, s -> s.coflow, s -> s.reader, chunkSize, lane);
  }

  /** One block being sent. */
  private final class OutStream {
    final long id;
    final String coflow;
    final long reader;
    final BlockSegment segment;
    int priority;
    long sent;
    long credit;
    boolean queued;
    boolean cancelled;

    /** When the request arrived (the sending queue's wait ends at its first chunk). */
    final long requested = System.nanoTime();

    /** The data file, opened when the request was checked; null once closed. */
    FileChannel file;

    /**
     * Closes the file once everything written from it has left (or failed): chunks are written
     * without promises, so an empty write queued behind them tells when (writes complete in order).
     */
    void closeFile() {
      FileChannel f = file;
      file = null;
      if (f == null) {
        return;
      }
      if (!ctx.channel().isActive()) {
        closeQuietly(f); // a closed channel failed its pending writes already
      } else {
        ctx.write(Unpooled.EMPTY_BUFFER).addListener(done -> closeQuietly(f));
      }
    }

    OutStream(long id, String coflow, long reader, BlockSegment segment, long credit) {
      this.id = id;
      this.coflow = coflow;
      this.reader = reader;
      this.segment = segment;
      this.file = segment.channel();
      this.credit = credit;
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
    try {
      switch (frame.type()) {
        case BLOCK_REQUEST:
          request(frame.header());
          break;
        case CREDIT:
          credit(frame.header());
          break;
        case CANCEL:
          cancel(((org.coflow.api.proto.courier.v1.Cancel) frame.header()).getStreamId());
          break;
        case PRIORITY:
          Priority pr = frame.header();
          pace(pr.getCoflowId(), pr.getRateBytesPerSec());
          prioritize(pr.getCoflowId(), pr.getPriority());
          break;
        default:
          throw new ProtocolException(
              ErrorCode.ERROR_CODE_PROTOCOL,
              frame.type() + " is not expected from a fetching agent");
      }
    } finally {
      frame.release();
    }
  }

  private void request(BlockRequest req) {
    if (streams.containsKey(req.getStreamId())) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "stream " + req.getStreamId() + " is already open on this connection");
    }
    if (streams.size() >= maxStreams) {
      error(
          req.getStreamId(),
          ErrorCode.ERROR_CODE_BUSY,
          "this connection has "
              + streams.size()
              + " streams open, its bound (coflow.courier.maxStreamsPerConnection); retry when "
              + "some have ended");
      return;
    }
    BlockSegment segment;
    long t0 = System.nanoTime();
    try {
      segment = registry.resolve(req.getBlock());
      metrics.resolve.recordNanos(System.nanoTime() - t0);
    } catch (ProtocolException e) {
      error(req.getStreamId(), e.code(), e.getMessage());
      return;
    } catch (IOException e) {
      LOG.warn(
          "remote={} block={} stream={}: cannot read its index",
          ctx.channel().remoteAddress(),
          req.getBlock().getBlock(),
          req.getStreamId(),
          e);
      error(
          req.getStreamId(),
          ErrorCode.ERROR_CODE_IO,
          "reading block "
              + req.getBlock().getBlock()
              + " failed on the serving host: "
              + e.getMessage());
      return;
    }
    OutStream s =
        new OutStream(
            req.getStreamId(), req.getCoflowId(), req.getReader(), segment, req.getCredit());
    if (!priorities.containsKey(s.coflow)) {
      priorities.put(s.coflow, req.getPriority());
      pace(s.coflow, req.getRateBytesPerSec());
    }
    s.priority = priorities.get(s.coflow);
    LOG.debug(
        "serving coflow={} remote={} block={} priority={}",
        s.coflow,
        dstHost,
        req.getBlock().getBlock(),
        s.priority);
    streams.put(s.id, s);
    BlockStart.Builder start =
        BlockStart.newBuilder()
            .setStreamId(s.id)
            .setLength(segment.length())
            .setChecksumAlgorithm(segment.checksumAlgorithm())
            .setChecksum(segment.checksum())
            .setRawLength(segment.rawLength());
    for (long n : segment.partLengths()) {
      start.addPartLengths(n);
    }
    for (long c : segment.partChecksums()) {
      start.addPartChecksums(c);
    }
    ctx.write(Frame.of(FrameType.BLOCK_START, start.build()));
    enqueue(s);
    pump();
  }

  private void credit(Credit c) {
    OutStream s = streams.get(c.getStreamId());
    if (s == null) {
      return; // the stream ended while the credit was on its way
    }
    s.credit += c.getBytes();
    enqueue(s);
    pump();
  }

  private void cancel(long id) {
    OutStream s = streams.remove(id);
    if (s != null) {
      s.cancelled = true;
      dequeue(s);
      s.closeFile();
    }
  }

  private static void closeQuietly(FileChannel f) {
    try {
      f.close();
    } catch (IOException e) {
      LOG.debug("closing a served file failed: {}", e.toString());
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    removed = true;
    ready.clear();
    order.remove(dstHost, this);
    for (OutStream s : streams.values()) {
      s.closeFile();
    }
    streams.clear();
  }

  private void pace(String coflow, double rate) {
    paces.set(dstHost, coflow, rate);
  }

  /** A coflow's streams on this connection move to {@code priority} (a new schedule). */
  private void prioritize(String coflow, int priority) {
    LOG.debug("priority coflow={} remote={} priority={}", coflow, dstHost, priority);
    priorities.put(coflow, priority);
    for (OutStream s : streams.values()) {
      if (s.coflow.equals(coflow) && s.priority != priority) {
        if (s.queued) {
          dequeue(s);
          s.priority = priority;
          enqueue(s);
        } else {
          s.priority = priority;
        }
      }
    }
    pump();
  }

  /** Queues a stream that has something to send (a block under way goes back to its place). */
  private void enqueue(OutStream s) {
    if (!s.queued && !s.cancelled && (s.credit > 0 || s.sent == s.segment.length())) {
      s.queued = true;
      ready.add(s, s.sent > 0);
    }
  }

  private void dequeue(OutStream s) {
    if (s.queued) {
      ready.remove(s, s.priority);
      s.queued = false;
    }
  }

  /**
   * The most important ready stream whose coflow's pace allows a chunk now (null if none), left in
   * the ready queues; {@code wait[0]} gets the shortest wait of the paced-out ones.
   */
  private OutStream next(long[] wait) {
    return ready.next(
        st -> {
          LinkRate pace = paces.get(dstHost, st.coflow);
          return pace == null ? 0 : pace.tryTake(chunkBytes(st));
        },
        wait);
  }

  /** {@code s}'s first bytes (or its end marker, for an empty block) are being written. */
  private void servedFirst(OutStream s) {
    long waited = System.nanoTime() - s.requested;
    metrics.serveWait.recordNanos(waited);
    if (lane) {
      metrics.laneServeWait.recordNanos(waited);
    }
  }

  /** The block's end marker, right behind its last chunk (it takes no turn of its own). */
  private void end(OutStream s) {
    if (s.segment.length() == 0) {
      servedFirst(s);
    }
    metrics.served.increment();
    dequeue(s);
    streams.remove(s.id);
    LOG.debug("served coflow={} remote={} bytes={}", s.coflow, dstHost, s.sent);
    s.closeFile();
    ctx.write(
        Frame.of(
            FrameType.BLOCK_END,
            BlockEnd.newBuilder()
                .setStreamId(s.id)
                .setLength(s.segment.length())
                .setChecksum(s.segment.checksum())
                .setChecksumAlgorithm(s.segment.checksumAlgorithm())
                .build()));
  }

  /** The bytes of {@code s}'s next chunk: a chunk, or less at its end or its credit's. */
  private long chunkBytes(OutStream s) {
    return Math.min(Math.min(chunkSize, s.segment.length() - s.sent), s.credit);
  }

  /**
   * Sends chunks while the channel can take them and the link rate allows: the most important ready
   * stream first, streams of equal priority in turn.
   */
  private void pump() {
    if (removed) {
      // A timer or another connection's wake-up after this one closed: nothing to send, and
      // publishing a priority now would hold the host's other connections back for good.
      if (prepaid) {
        prepaid = false;
        link.giveBack(chunkSize);
      }
      return;
    }
    long[] paced = new long[1];
    boolean pacedOut = false;
    while (ctx.channel().isWritable()
        && unsent < maxUnsent
        && !ready.isEmpty()
        && !waitingForLink
        && order.maySend(dstHost, this, DestinationOrder.rank(ready.firstPriority(), lane))) {
      if (!prepaid
          && !link.grant(
              ready.firstPriority(),
              chunkSize,
              () ->
                  ctx.executor()
                      .execute(
                          () -> {
                            // Our turn at the host's link came: the chunk's bytes are already
                            // taken.
                            waitingForLink = false;
                            prepaid = true;
                            pump();
                          }))) {
        waitingForLink = true; // queued behind more important connections of this host
        break;
      }
      prepaid = false;
      OutStream s = next(paced);
      if (s == null) {
        link.giveBack(chunkSize);
        pacedOut = true;
        long deadline = paced[0] == Long.MAX_VALUE ? Long.MAX_VALUE : now() + paced[0];
        if (deadline < paceDeadline) {
          // Every ready coflow is held by its pace: try again when the first may go (earlier
          // than any timer already pending). Not a wait on the link: a new request, credit or
          // schedule pumps at once.
          paceDeadline = deadline;
          ctx.executor()
              .schedule(
                  () -> {
                    metrics.paceLateness.recordNanos(now() - deadline);
                    if (paceDeadline == deadline) {
                      paceDeadline = Long.MAX_VALUE;
                    }
                    pump();
                  },
                  paced[0],
                  TimeUnit.NANOSECONDS);
        }
        break;
      }
      if (s.sent == s.segment.length()) {
        link.giveBack(chunkSize); // an empty block: its end marker alone
        end(s);
        continue;
      }
      long n = chunkBytes(s);
      if (n < chunkSize) {
        // The link was asked for a whole chunk before the stream was chosen; a short chunk (a
        // block's tail, or a block of a few bytes, as most are in a shuffle with many
        // partitions) costs only its bytes, else small blocks would crawl at a chunk each.
        link.giveBack(chunkSize - n);
      }
      if (s.sent == 0) {
        servedFirst(s);
      }
      unsent += n;
      ctx.write(
              Frame.withFile(
                  FrameType.CHUNK,
                  Chunk.newBuilder().setStreamId(s.id).setOffset(s.sent).build(),
                  new SegmentRegion(s.file, s.segment.offset() + s.sent, n)))
          .addListener(
              done -> {
                unsent -= n;
                if (unsent < maxUnsent && ctx.channel().isActive() && !pumpQueued) {
                  // Not inline: this runs inside the channel's flush, where a nested flush is
                  // ignored and what the pump wrote would sit unflushed.
                  pumpQueued = true;
                  ctx.executor()
                      .execute(
                          () -> {
                            pumpQueued = false;
                            pump();
                          });
                }
              });
      s.sent += n;
      s.credit -= n;
      ready.sent(s, s.priority, n);
      if (s.sent == s.segment.length()) {
        end(s);
      } else if (s.credit == 0) {
        dequeue(s); // back in its place when credit comes
      }
    }
    ctx.flush();
    // A connection whose ready coflows are all paced out has nothing to send now: it holds no
    // other connection back until its pace lets it.
    long best =
        ready.isEmpty() || pacedOut
            ? DestinationOrder.NONE
            : DestinationOrder.rank(ready.firstPriority(), lane);
    order.update(dstHost, this, best, wake);
    if (best < DestinationOrder.NONE
        && !pacedOut
        && !waitingForLink
        && ctx.channel().isWritable()
        && unsent < maxUnsent
        && order.maySend(dstHost, this, best)) {
      // Held back by another connection that changed before it could see this one's entry: it
      // will not wake this one, so try again.
      wake.run();
    }
  }

  private long now() {
    return paces.now();
  }

  private void error(long stream, ErrorCode code, String message) {
    ctx.writeAndFlush(
        Frame.of(
            FrameType.BLOCK_ERROR,
            BlockError.newBuilder().setStreamId(stream).setCode(code).setMessage(message).build()));
  }

  /**
   * A connection silent for the idle timeout is closed, open streams or not: streams that got no
   * credit for that long hold their files for nothing (the fetching agent opens another connection
   * when it needs one).
   */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof io.netty.handler.timeout.IdleStateEvent) {
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      pump();
    }
    ctx.fireChannelWritabilityChanged();
  }
}
