package org.coflow.courier.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.Cancel;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.FetchRequest;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.Registered;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.courier.v1.Unregister;
import org.coflow.courier.fetch.FetchService;
import org.coflow.courier.fetch.LocalFetches;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.serve.BlockRegistry;

/**
 * A local client's connection to its host's agent: registrations of data to serve, and fetch
 * requests. Each requested block becomes stream {@code request_id << 20 | index} towards the
 * client: {@code BLOCK_START}, {@code CHUNK}s (streamed blocks, within the credit the client
 * grants) and {@code BLOCK_END}, or just {@code BLOCK_END} once a block it asked to have written
 * into a file is there, verified; or {@code BLOCK_ERROR}. When the client goes away, its blocks
 * still in flight are cancelled at the serving agents.
 */
final class ClientSession extends SimpleChannelInboundHandler<Frame> {
  static final int INDEX_BITS = 20;
  private static final long DEFAULT_WINDOW = 1 << 20;

  /** A client may not ask the agent to hold more of one stream than this for it. */
  private static final long MAX_WINDOW = 16 << 20;

  /** What the first windows of one connection's streams share. */
  private static final long CONNECTION_WINDOW = 64 << 20;

  /** The least a stream gets, however many there are: one chunk. */
  private static final long MIN_WINDOW = 64 << 10;

  /** Bytes the agent may still have to hold for the client, all streams together. */
  private final java.util.concurrent.atomic.AtomicLong outstanding =
      new java.util.concurrent.atomic.AtomicLong();

  private final Map<Long, Relay> relays = new ConcurrentHashMap<>();

  private final BlockRegistry registry;

  /** Numbers client connections as readers (kept apart from in-process readers' task ids). */
  private static final java.util.concurrent.atomic.AtomicLong READERS =
      new java.util.concurrent.atomic.AtomicLong(1L << 62);

  /**
   * The client's readers (its tasks) under numbers of the agent's own, so that no client can pass
   * for another's reader; a client that names none (0), or more than {@link #MAX_READERS}, is one
   * reader.
   */
  private final Map<Long, Long> readers = new ConcurrentHashMap<>();

  private final long defaultReader = READERS.incrementAndGet();

  private static final int MAX_READERS = 1024;

  private boolean defaultReaderSeen;

  private long reader(long clientReader) {
    metrics.clientStreams.increment();
    if (clientReader == 0 || readers.size() >= MAX_READERS && !readers.containsKey(clientReader)) {
      if (!defaultReaderSeen) {
        defaultReaderSeen = true;
        metrics.clientReaders.increment();
      }
      return defaultReader;
    }
    return readers.computeIfAbsent(
        clientReader,
        k -> {
          metrics.clientReaders.increment();
          return READERS.incrementAndGet();
        });
  }

  private final LocalFetches fetches;
  private final org.coflow.courier.metrics.DataPlaneMetrics metrics;

  /** The client's identity (authenticated, or an anonymous connection's name). */
  private final String principal;

  private final int maxStreams;

  /**
   * The client's share of the agent's relay budget: the windows of streams relayed to clients are
   * reserved in it, so that no identity holds the whole budget.
   */
  private final org.coflow.courier.protocol.BudgetShares.Holder budget;

  /** Blocks requested and not yet ended, failed or cancelled. */
  private int inFlight;

  private boolean registeredAny;
  private final Map<Long, FetchService.Handle> streams = new ConcurrentHashMap<>();

  /** Streams the client cancelled before they started (dropped when they start or end). */
  private final java.util.Set<Long> cancelled = ConcurrentHashMap.newKeySet();

  private Channel channel;

  ClientSession(
      BlockRegistry registry,
      LocalFetches fetches,
      String principal,
      int maxStreams,
      org.coflow.courier.protocol.BudgetShares.Holder budget,
      org.coflow.courier.metrics.DataPlaneMetrics metrics) {
    this.metrics = metrics;
    this.budget = budget;
    this.registry = registry;
    this.fetches = fetches;
    this.principal = principal;
    this.maxStreams = maxStreams;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
  }

  /** The connection is gone: its identity's share no longer counts this session. */
  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    budget.close();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
    try {
      switch (frame.type()) {
        case REGISTER_SPARK:
          registered(() -> registry.register((RegisterSpark) frame.header(), principal));
          break;
        case REGISTER_MAPREDUCE:
          registered(() -> registry.register((RegisterMapReduce) frame.header(), principal));
          break;
        case UNREGISTER:
          {
            String set = ((Unregister) frame.header()).getBlockSet();
            registry.unregister(set, principal);
            channel.writeAndFlush(
                Frame.of(FrameType.REGISTERED, Registered.newBuilder().setBlockSet(set).build()));
            break;
          }
        case FETCH_REQUEST:
          fetch(frame.header());
          break;
        case CREDIT:
          credit(frame.header());
          break;
        case CANCEL:
          {
            // The client gave up on a stream (its reader stopped): stop fetching it, now or, if it
            // is still waiting for a connection, as soon as it starts.
            long id = ((Cancel) frame.header()).getStreamId();
            FetchService.Handle gone = streams.remove(id);
            if (gone != null) {
              gone.cancel();
            } else if (cancelled.size() < maxStreams) {
              // Remembered for a stream that has not started yet (bounded: at most one per
              // stream the connection may have).
              cancelled.add(id);
            }
            break;
          }
        default:
          throw new ProtocolException(
              ErrorCode.ERROR_CODE_PROTOCOL, frame.type() + " is not expected from a local client");
      }
    } finally {
      frame.release();
    }
  }

  private void registered(java.util.function.Supplier<BlockRegistry.Registration> register) {
    BlockRegistry.Registration r;
    try {
      r = register.get();
    } catch (java.nio.file.InvalidPathException e) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_INVALID,
          "a registered directory is not a valid path: " + e.getMessage().replace('\0', '?'));
    }
    registeredAny = true;
    channel.writeAndFlush(
        Frame.of(
            FrameType.REGISTERED,
            Registered.newBuilder().setBlockSet(r.id()).setUnverified(!r.verified()).build()));
  }

  /** A silent connection with nothing in flight that serves nothing is closed. */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof io.netty.handler.timeout.IdleStateEvent) {
      if (inFlight == 0 && !registeredAny) {
        ctx.close();
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  private void fetch(FetchRequest req) {
    if (req.getRequestId() >= 1L << (63 - INDEX_BITS) || req.getBlocksCount() > 1 << INDEX_BITS) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_INVALID,
          "fetch request "
              + req.getRequestId()
              + " with "
              + req.getBlocksCount()
              + " blocks: ids go up to 2^43 and requests to 2^20 blocks");
    }
    if (req.getBlocksCount() > maxStreams) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_BUSY,
          "fetch request "
              + req.getRequestId()
              + " names "
              + req.getBlocksCount()
              + " blocks; a connection may have "
              + maxStreams
              + " in flight (coflow.courier.maxStreamsPerConnection): split the request");
    }
    // A stream's first window: at most MAX_WINDOW, and the connection's streams share about
    // CONNECTION_WINDOW, so that one client's many streams leave room in the agent's relay budget
    // (which is what bounds what the agent holds; credit beyond it waits).
    int n = Math.max(1, req.getBlocksCount());
    long window =
        Math.max(
            MIN_WINDOW,
            Math.min(
                Math.min(req.getWindow() > 0 ? req.getWindow() : DEFAULT_WINDOW, MAX_WINDOW),
                (CONNECTION_WINDOW - outstanding.get()) / n));
    for (int i = 0; i < req.getBlocksCount(); i++) {
      long stream = req.getRequestId() << INDEX_BITS | i;
      Pending p = new Pending(req.getCoflowId(), stream, req.getBlocks(i), window);
      if (queued.isEmpty() && inFlight < maxStreams && start(p)) {
        continue;
      }
      if (queued.size() < maxStreams) {
        // Beyond the bound, or while the client's share of the relay budget is full, blocks wait
        // here (as many again), started in order as others end or bytes are given back.
        queued.add(p);
        if (queued.size() == 1 && inFlight < maxStreams) {
          waitForBudget();
        }
      } else {
        error(
            stream,
            ErrorCode.ERROR_CODE_BUSY,
            "this connection has "
                + inFlight
                + " blocks in flight and "
                + queued.size()
                + " waiting, its bound (coflow.courier.maxStreamsPerConnection is "
                + maxStreams
                + "); retry when some have ended");
      }
    }
  }

  /** A requested block not started yet. */
  private static final class Pending {
    final String coflow;
    final long stream;
    final RemoteBlock block;
    final long window;

    Pending(String coflow, long stream, RemoteBlock block, long window) {
      this.coflow = coflow;
      this.stream = stream;
      this.block = block;
      this.window = window;
    }
  }

  /**
   * Blocks beyond the in-flight bound or waiting for room in the client's share, in the order they
   * were asked for.
   */
  private final java.util.ArrayDeque<Pending> queued = new java.util.ArrayDeque<>();

  /** Starts queued blocks while the bound and the client's share let them. */
  private void drain() {
    while (inFlight < maxStreams && !queued.isEmpty() && channel.isActive()) {
      if (!start(queued.peek())) {
        waitForBudget();
        return;
      }
      queued.poll();
    }
  }

  /**
   * Starts a block, or returns false when its first window finds no room in the client's share of
   * the relay budget (it then waits for bytes to come back).
   */
  private boolean start(Pending p) {
    long stream = p.stream;
    RemoteBlock block = p.block;
    long window = p.window;
    if (cancelled.remove(stream)) {
      return true; // the client gave up on it before it started: nothing to tell
    }
    // A block written into a file is never relayed: it holds nothing of the client's window.
    // A streamed one's window is reserved in the client's share of the agent's budget first:
    // what the agent holds for clients that read slowly stays under the budget, and no one
    // identity holds all of it.
    long reserve = 0;
    if (block.getTargetFile().isEmpty()) {
      reserve =
          budget.tryReserve(window) ? window : budget.tryReserve(MIN_WINDOW) ? MIN_WINDOW : -1;
    }
    if (reserve < 0) {
      return false;
    }
    String coflow = p.coflow;
    inFlight++;
    Relay relay = new Relay(stream, reserve);
    relays.put(stream, relay);
    fetches.fetch(
        principal,
        coflow,
        block.toBuilder().setReader(reader(block.getReader())).build(),
        reserve > 0 ? reserve : window,
        true,
        relay,
        handle -> {
          if (cancelled.remove(stream)) {
            handle.cancel();
            return;
          }
          streams.put(stream, handle);
          // A CANCEL may have come between the check above and the put (another thread).
          if (cancelled.remove(stream) && streams.remove(stream) != null) {
            handle.cancel();
          }
          if (!channel.isActive()) {
            cancelAll();
          }
        });
    return true;
  }

  /**
   * The client can take more of a stream: granted within the stream's and the connection's caps.
   */
  private void credit(Credit c) {
    FetchService.Handle h = streams.get(c.getStreamId());
    Relay r = relays.get(c.getStreamId());
    if (h == null || r == null) {
      return;
    }
    long allowed = Math.min(c.getBytes(), MAX_WINDOW - r.owed.get() - r.deferred.get());
    if (allowed <= 0) {
      return;
    }
    long now = r.deferred.get() == 0 ? budget.tryReserveUpTo(allowed) : 0;
    if (now > 0) {
      r.grant(h, now);
    }
    if (now < allowed) {
      // No room in the agent's budget for the rest now: granted as bytes are given back.
      r.deferred.addAndGet(allowed - now);
      waitForBudget();
    }
  }

  private boolean waitingForBudget;

  private void waitForBudget() {
    if (!waitingForBudget) {
      waitingForBudget = true;
      budget.whenFreed(() -> channel.eventLoop().execute(this::grantDeferred));
    }
  }

  /** Grants the credit that waited for room in the budget, as far as there is room now. */
  private void grantDeferred() {
    waitingForBudget = false;
    if (!channel.isActive()) {
      return;
    }
    for (Relay r : relays.values()) {
      long d = r.deferred.get();
      FetchService.Handle h = streams.get(r.stream);
      if (d == 0 || h == null) {
        continue;
      }
      long take = budget.tryReserveUpTo(d);
      if (take > 0) {
        r.deferred.addAndGet(-take);
        r.grant(h, take);
      }
      if (take < d) {
        waitForBudget();
        return;
      }
    }
    drain();
  }

  private void error(long stream, ErrorCode code, String message) {
    streams.remove(stream);
    cancelled.remove(stream);
    channel.writeAndFlush(
        Frame.of(
            FrameType.BLOCK_ERROR,
            BlockError.newBuilder().setStreamId(stream).setCode(code).setMessage(message).build()));
  }

  private void end(long stream, long length) {
    streams.remove(stream);
    cancelled.remove(stream);
    channel.writeAndFlush(
        Frame.of(
            FrameType.BLOCK_END,
            BlockEnd.newBuilder().setStreamId(stream).setLength(length).build()));
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    queued.clear();
    cancelAll();
    ctx.fireChannelInactive();
  }

  private void cancelAll() {
    for (Long id : streams.keySet()) {
      FetchService.Handle h = streams.remove(id);
      if (h != null) {
        h.cancel();
      }
    }
  }

  /**
   * Tells the client of one block: streamed bytes as they come (the client's credit paces them),
   * then {@code BLOCK_END} once the block is verified (streamed or in its file), or {@code
   * BLOCK_ERROR}. Bytes already relayed are the client's to discard: only {@code BLOCK_END} vouches
   * for a block.
   */
  private final class Relay implements LocalFetches.Delivery {
    final long stream;

    /** Credit the client granted that waits for room in the agent's budget. */
    final java.util.concurrent.atomic.AtomicLong deferred =
        new java.util.concurrent.atomic.AtomicLong();

    private long offset;

    /** Bytes of this stream granted to the agent and not yet relayed. */
    final java.util.concurrent.atomic.AtomicLong owed =
        new java.util.concurrent.atomic.AtomicLong();

    /** What the stream may have ahead of the client's credit (told to the client). */
    private final long window;

    /** {@code window} bytes are reserved in the budget for it already. */
    Relay(long stream, long window) {
      this.stream = stream;
      this.window = window;
      owed.set(window);
      outstanding.addAndGet(window);
    }

    /** Passes on {@code bytes} of credit, reserved in the budget already. */
    void grant(FetchService.Handle h, long bytes) {
      owed.addAndGet(bytes);
      outstanding.addAndGet(bytes);
      h.grant(bytes);
    }

    @Override
    public void started(long length, long rawLength) {
      channel.write(
          Frame.of(
              FrameType.BLOCK_START,
              BlockStart.newBuilder()
                  .setStreamId(stream)
                  .setLength(length)
                  .setRawLength(rawLength)
                  .setWindow(window)
                  .build()));
    }

    @Override
    public void data(ByteBuf data) {
      int n = data.readableBytes();
      owed.addAndGet(-n);
      outstanding.addAndGet(-n);
      // A copy of exactly these bytes, in the heap (a slice would keep the whole socket read
      // buffer it came in alive while the client is slow, and what slow clients make the agent
      // hold stays out of the direct memory its data connections need); its reservation ends
      // once it has left.
      ByteBuf copy = io.netty.buffer.PooledByteBufAllocator.DEFAULT.heapBuffer(n);
      copy.writeBytes(data, data.readerIndex(), n);
      channel
          .writeAndFlush(
              Frame.withBody(
                  FrameType.CHUNK,
                  Chunk.newBuilder().setStreamId(stream).setOffset(offset).build(),
                  copy))
          .addListener(f -> budget.release(n));
      offset += n;
    }

    @Override
    public void done(long length) {
      ended();
      end(stream, length);
    }

    @Override
    public void failed(ProtocolException error) {
      ended();
      error(stream, error.code(), error.getMessage());
    }

    private void ended() {
      relays.remove(stream);
      long left = owed.getAndSet(0);
      outstanding.addAndGet(-left);
      budget.release(left);
      deferred.set(0);
      channel
          .eventLoop()
          .execute(
              () -> {
                inFlight--;
                drain();
              });
    }
  }
}
