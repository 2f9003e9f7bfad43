package org.apache.spark.shuffle.courier;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockBatchId;
import org.apache.spark.storage.ShuffleBlockId;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.client.RemoteAgent;
import org.coflow.courier.protocol.BlockSetId;

/**
 * The blocks of one reduce task, in the order they become readable: local blocks straight from this
 * executor's files, remote ones through the local agent, which fetches them from the remote
 * executors' agents over the unified connections. At most {@code maxBytesInFlight} of remote blocks
 * are requested and not yet read; blocks above {@code maxBlockInMemory} land in a file in the
 * executor's local directories. A block that fails or shows no progress for {@code timeoutMillis}
 * becomes Spark's {@link FetchFailedException}, so Spark reruns the map stage as with its own
 * fetch.
 */
final class CourierBlockFetcher implements Iterator<CourierBlockFetcher.Fetched> {
  /**
   * A block to read: from another executor's agent, or (no agent) from this executor's files or
   * from those of another executor on this host ({@code dirs}, its local directories).
   */
  static final class Remote {
    final BlockManagerId location;
    final ShuffleBlockId block;
    final long size;
    final int mapIndex;
    final RemoteAgent agent;
    final String[] dirs;

    Remote(
        BlockManagerId location, ShuffleBlockId block, long size, int mapIndex, RemoteAgent agent) {
      this(location, block, size, mapIndex, agent, null);
    }

    Remote(
        BlockManagerId location,
        ShuffleBlockId block,
        long size,
        int mapIndex,
        RemoteAgent agent,
        String[] dirs) {
      this.location = location;
      this.block = block;
      this.size = size;
      this.mapIndex = mapIndex;
      this.agent = agent;
      this.dirs = dirs;
    }
  }

  /** A readable block. */
  static final class Fetched {
    final ShuffleBlockId block;
    final InputStream data;

    Fetched(ShuffleBlockId block, InputStream data) {
      this.block = block;
      this.data = data;
    }
  }

  /**
   * Consecutive blocks of one map output that the reduce task reads as one stream, as Spark's batch
   * fetch does when AQE allows it (one decompression and deserialisation stream instead of one per
   * partition), or a single block; fetched as one stream (a segment of the map output's file, each
   * partition checked at its end by the fetching agent), kept in memory (chunks) or in a file.
   */
  private static final class Batch {
    final List<Remote> parts;
    final long size;
    Path file;

    /** The agent's buffers as received (retained), until a stream reads them or the task ends. */
    final List<ByteBuf> chunks = new ArrayList<>();

    long bytes;
    Throwable failure;

    /** Set once the task ended or the batch was handed out: no chunk is kept after. */
    boolean sealed;

    Batch(List<Remote> parts) {
      this.parts = parts;
      this.size = parts.stream().mapToLong(r -> r.size).sum();
    }
  }

  /**
   * Blocks in the order given, adjacent blocks of one map output on one executor merged when {@code
   * batch}, as Spark's {@code mergeContinuousShuffleBlockIdsIfNeeded} merges them: by map output
   * only, since the map-output tracker leaves empty partitions out of a task's contiguous range (a
   * gap in the reduce ids is an empty partition, which adds no bytes to the batch's segment).
   */
  static List<List<Remote>> group(List<Remote> blocks, boolean batch) {
    List<List<Remote>> out = new ArrayList<>();
    List<Remote> current = null;
    for (Remote r : blocks) {
      if (batch && current != null) {
        Remote last = current.get(current.size() - 1);
        if (last.location.equals(r.location)
            && last.block.mapId() == r.block.mapId()
            && r.block.reduceId() - current.get(0).block.reduceId() < MAX_SEGMENT_PARTITIONS) {
          current.add(r);
          continue;
        }
      }
      current = new ArrayList<>();
      current.add(r);
      out.add(current);
    }
    return out;
  }

  /**
   * The most partitions one segment spans: its request lists each partition's length and checksum
   * (about 16 bytes each) in a header of at most 1 MiB.
   */
  static final int MAX_SEGMENT_PARTITIONS = 8192;

  /** Failures after which an executor's blocks are read with Spark's own fetch. */
  private static final java.util.Set<org.coflow.api.proto.courier.v1.ErrorCode> STOCK_FETCH_AFTER =
      java.util.EnumSet.of(
          org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_UNREACHABLE,
          org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_UNSUPPORTED_VERSION);

  private final ExecutorAgent agent;
  private final String coflowId;
  private final BlockManager blockManager;
  private final ShuffleReadMetricsReporter metrics;
  private final int shuffleId;
  private final long maxBytesInFlight;
  private final long maxBlockInMemory;
  private final long timeoutMillis;

  /** The task, as the reader its blocks are sent for (whole and in order, tasks in turn). */
  private final long reader;

  private final List<Batch> remote = new ArrayList<>();
  private final List<List<Remote>> local;
  private final LinkedBlockingQueue<Batch> done = new LinkedBlockingQueue<>();
  private final List<Batch> open = new ArrayList<>();

  /** Streams of buffers handed to the task, released at its end if it did not read them out. */
  private final List<ChunksStream> handedOut = new ArrayList<>();

  private int nextRemote;
  private int nextLocal;
  private int delivered;
  private long inFlight;

  /** The size of the block handed out last, released when the next one is asked for. */
  private long lastRemoteSize;

  private volatile boolean closed;

  /**
   * @param cfg the plugin's settings: {@code maxBytesInFlight}, {@code maxBlockInMemory}, {@code
   *     fetchTimeout}
   */
  CourierBlockFetcher(
      ExecutorAgent agent,
      String coflowId,
      BlockManager blockManager,
      TaskContext context,
      ShuffleReadMetricsReporter metrics,
      int shuffleId,
      List<Remote> remote,
      List<Remote> local,
      boolean batch,
      org.coflow.core.config.Config cfg) {
    this.agent = agent;
    this.coflowId = coflowId;
    this.blockManager = blockManager;
    this.metrics = metrics;
    this.shuffleId = shuffleId;
    for (List<Remote> parts : group(remote, batch)) {
      this.remote.add(new Batch(parts));
    }
    this.local = group(local, batch);
    this.maxBytesInFlight = cfg.get(CourierSparkConfig.MAX_BYTES_IN_FLIGHT);
    this.maxBlockInMemory = cfg.get(CourierSparkConfig.MAX_BLOCK_IN_MEMORY);
    this.timeoutMillis = cfg.get(CourierSparkConfig.FETCH_TIMEOUT);
    this.reader = context.taskAttemptId();
    context.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) c -> close());
    request();
  }

  /** Runs of consecutive partitions of one map output this task reads as one stream. */
  long batchedRuns() {
    return remote.stream().filter(b -> b.parts.size() > 1).count()
        + local.stream().filter(l -> l.size() > 1).count();
  }

  /**
   * Sends the next requests while they fit in the in-flight budget (a lone big batch always goes).
   */
  private void request() {
    List<Batch> batches = new ArrayList<>();
    while (nextRemote < remote.size()) {
      Batch batch = remote.get(nextRemote);
      if (inFlight > 0 && inFlight + batch.size > maxBytesInFlight) {
        break;
      }
      inFlight += batch.size;
      nextRemote++;
      if (batch.size > maxBlockInMemory) {
        batch.file =
            new File(agent.localDirs.get(0), "courier-fetch-" + UUID.randomUUID()).toPath();
      }
      batches.add(batch);
    }
    if (batches.isEmpty()) {
      return;
    }
    List<RemoteBlock> blocks = new ArrayList<>();
    for (Batch batch : batches) {
      Remote r = batch.parts.get(0);
      RemoteBlock.Builder b =
          RemoteBlock.newBuilder()
              .setHostId(r.agent.hostId())
              .setAgentAddress(r.agent.address().toString())
              .setSize(batch.size)
              .setReader(reader)
              .setBlock(
                  BlockRef.newBuilder()
                      .setBlockSet(
                          BlockSetId.spark(agent.appId, r.location.executorId()).toString())
                      .setBlock(blockToRead(shuffleId, batch.parts).name()));
      if (batch.file != null) {
        b.setTargetFile(batch.file.toString());
      }
      blocks.add(b.build());
    }
    synchronized (open) {
      open.addAll(batches);
    }
    List<CompletableFuture<Long>> futures =
        agent.fetchBlocks(coflowId, blocks, (i, data) -> receive(batches.get(i), data), 4L << 20);
    for (int i = 0; i < futures.size(); i++) {
      Batch batch = batches.get(i);
      futures
          .get(i)
          .whenComplete(
              (n, e) -> {
                batch.failure = e;
                done.add(batch);
              });
    }
  }

  /**
   * Whether the stage's retry should read the failed executor's blocks with Spark's own fetch: its
   * agent is gone or of another release, or this JVM had no memory left for the agent's buffers (a
   * retry through the agent would likely fail the same way, and four failed attempts end the job).
   */
  static boolean readWithStockFetchAfter(Throwable cause) {
    int depth = 0;
    for (Throwable t = cause; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof OutOfMemoryError) {
        return true;
      }
      if (t instanceof org.coflow.courier.protocol.ProtocolException
          && STOCK_FETCH_AFTER.contains(
              ((org.coflow.courier.protocol.ProtocolException) t).code())) {
        return true;
      }
    }
    return false;
  }

  /**
   * On the connection's thread: keeps the delivered piece until the task has read it ({@link
   * #keep}).
   */
  private void receive(Batch a, ByteBuf data) {
    synchronized (a) {
      if (closed || a.sealed) {
        return;
      }
      a.chunks.add(keep(data));
      a.bytes += data.readableBytes();
    }
  }

  /**
   * What the reader keeps of a piece the agent delivered: the agent's buffer itself (retained,
   * without a copy, as Spark's own fetch keeps Netty's buffers) when the piece is most of that
   * buffer, else a copy of exactly its bytes in the agent's allocator. The agent reads up to a
   * megabyte from a socket at once and hands out pieces of that read to the streams it carries; a
   * retained slice keeps the whole read alive until every task holding a piece of it has read it,
   * so small pieces kept as slices pinned many times their size, past the tasks' in-flight budgets
   * (an executor's 640 MiB of direct memory ran out under concurrent jobs).
   */
  static ByteBuf keep(ByteBuf data) {
    int n = data.readableBytes();
    ByteBuf whole = data.unwrap();
    if (!(data instanceof CompositeByteBuf) && (whole == null || n >= whole.capacity() / 2)) {
      return data.retainedSlice();
    }
    ByteBuf copy = data.alloc().directBuffer(n, n);
    copy.writeBytes(data, data.readerIndex(), n);
    return copy;
  }

  @Override
  public boolean hasNext() {
    return delivered < remote.size() + local.size();
  }

  @Override
  public Fetched next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    inFlight -= lastRemoteSize;
    lastRemoteSize = 0;
    request();
    if (nextLocal < local.size()) {
      return nextLocal(local.get(nextLocal++));
    }
    long start = System.nanoTime();
    Batch b;
    try {
      b = done.poll(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for shuffle blocks", e);
    }
    metrics.incFetchWaitTime(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    if (b == null) {
      Remote late = oldestOpen();
      throw fetchFailed(
          late,
          "no shuffle block arrived through the Courier agent for "
              + timeoutMillis
              + " ms ("
              + CourierSparkConfig.FETCH_TIMEOUT.key()
              + "); waiting for "
              + late.block
              + " from "
              + late.agent,
          null);
    }
    synchronized (open) {
      open.remove(b);
    }
    delivered++;
    if (b.failure != null) {
      discard(b);
      Remote r = b.parts.get(0);
      Throwable cause =
          b.failure instanceof java.util.concurrent.CompletionException
                  && b.failure.getCause() != null
              ? b.failure.getCause()
              : b.failure;
      if (readWithStockFetchAfter(cause)) {
        agent.unreachable(r.location.executorId(), r.agent.address());
      } else {
        agent.failed(r.location.executorId()); // after the stage retry, ask the driver again
      }
      throw fetchFailed(
          r,
          "fetching "
              + blockToRead(shuffleId, b.parts)
              + " through the Courier agent of host "
              + r.agent.hostId()
              + " failed: "
              + cause.getMessage(),
          cause);
    }
    lastRemoteSize = b.size;
    metrics.incRemoteBlocksFetched(1);
    InputStream data;
    if (b.file != null) {
      try {
        long n = Files.size(b.file);
        metrics.incRemoteBytesRead(n);
        metrics.incRemoteBytesReadToDisk(n);
        data = new DeletingFileStream(b.file);
      } catch (IOException e) {
        deleteQuietly(b.file);
        Remote r = b.parts.get(0);
        throw fetchFailed(
            r,
            "reading "
                + b.file
                + " fetched for "
                + blockToRead(shuffleId, b.parts)
                + " failed: "
                + e.getMessage(),
            e);
      }
    } else {
      ChunksStream chunks;
      synchronized (b) {
        b.sealed = true;
        metrics.incRemoteBytesRead(b.bytes);
        chunks = new ChunksStream(new ArrayList<>(b.chunks));
        b.chunks.clear();
      }
      synchronized (handedOut) {
        handedOut.add(chunks);
      }
      data = chunks;
    }
    // Wrapped (decompressed) as its first block: the same codec and settings as the whole batch.
    return new Fetched(b.parts.get(0).block, data);
  }

  /**
   * What to read for a group of {@link #group}: the block itself, or for a run of consecutive
   * partitions of one map output, the batch {@code [first reduce, last reduce + 1)} that Spark's
   * batch fetch reads as one segment of the map output's file.
   */
  static BlockId blockToRead(int shuffleId, List<Remote> parts) {
    ShuffleBlockId id = parts.get(0).block;
    return parts.size() == 1
        ? id
        : new ShuffleBlockBatchId(
            shuffleId, id.mapId(), id.reduceId(), parts.get(parts.size() - 1).block.reduceId() + 1);
  }

  /**
   * A block of this executor or of another one on this host, or consecutive ones as one segment of
   * the map output's file; counted as local, as Spark's reader counts both.
   */
  private Fetched nextLocal(List<Remote> parts) {
    Remote first = parts.get(0);
    ShuffleBlockId id = first.block;
    BlockId read = blockToRead(shuffleId, parts);
    delivered++;
    try {
      org.apache.spark.network.buffer.ManagedBuffer buf =
          first.dirs == null
              ? blockManager.getLocalBlockData(read)
              : blockManager.getHostLocalShuffleData(read, first.dirs);
      metrics.incLocalBlocksFetched(1);
      metrics.incLocalBytesRead(buf.size());
      return new Fetched(id, buf.createInputStream());
    } catch (IOException | RuntimeException e) {
      throw fetchFailed(
          first, "reading local shuffle block " + read + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Spark's {@link FetchFailedException} (checked in Java, thrown unchecked by Spark's Scala
   * reader, which is what callers of a reader's iterator expect).
   */
  private RuntimeException fetchFailed(Remote r, String message, Throwable cause) {
    throw CourierBlockFetcher.<RuntimeException>sneaky(
        new FetchFailedException(
            r.location,
            shuffleId,
            r.block.mapId(),
            r.mapIndex,
            r.block.reduceId(),
            message,
            cause));
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable t) throws T {
    throw (T) t;
  }

  private Remote oldestOpen() {
    synchronized (open) {
      return (open.isEmpty() ? remote.get(remote.size() - 1) : open.get(0)).parts.get(0);
    }
  }

  /** Drops what is still arriving and removes files nobody will read. */
  void close() {
    closed = true;
    List<Batch> left;
    synchronized (open) {
      left = new ArrayList<>(open);
      open.clear();
    }
    for (Batch b : left) {
      discard(b);
    }
    for (Batch b; (b = done.poll()) != null; ) {
      discard(b);
    }
    synchronized (handedOut) {
      for (ChunksStream s : handedOut) {
        s.close();
      }
      handedOut.clear();
    }
  }

  /** Deletes a batch's file and releases the buffers it holds; later chunks are dropped. */
  private static void discard(Batch b) {
    deleteQuietly(b.file);
    synchronized (b) {
      b.sealed = true;
      for (ByteBuf c : b.chunks) {
        c.release();
      }
      b.chunks.clear();
    }
  }

  private static void deleteQuietly(Path p) {
    if (p != null) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        // best effort: the executor's local dirs go with the application
      }
    }
  }

  /** A fetched file, deleted once read or closed. */
  private static final class DeletingFileStream extends java.io.FilterInputStream {
    private final Path file;

    DeletingFileStream(Path file) throws IOException {
      super(new java.io.BufferedInputStream(Files.newInputStream(file), 64 << 10));
      this.file = file;
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } finally {
        Files.deleteIfExists(file);
      }
    }
  }
}
