package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.serve.BlockRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a local client's fetch enters the agent, whether the client lives in the agent's
 * process ({@code CourierAgent.fetchBlocks}) or talks to it over a client connection ({@code
 * ClientSession}): the target-file check, the choice between streaming a block to the client and
 * writing it into the client's file, the hand-over to {@link FetchService}, and the failure log.
 * The front-ends only translate {@link Delivery} calls into futures or frames.
 *
 * <p>Failures are logged here, once per block, with the throwable that caused them: this is the
 * agent's owner of a local fetch. The client still gets the failure (a failed future, a {@code
 * BLOCK_ERROR} frame), which the engine turns into its own fetch failure; it does not log it again
 * as a new event. Cancellations (the client gave up) are not failures.
 */
public final class LocalFetches {
  private static final Logger LOG = LoggerFactory.getLogger(LocalFetches.class);

  private final BlockRegistry registry;
  private final FetchService fetcher;

  public LocalFetches(BlockRegistry registry, FetchService fetcher) {
    this.registry = registry;
    this.fetcher = fetcher;
  }

  /**
   * What a client hears of one block. Called on the connection's event loop, in order: {@link
   * #started} and {@link #data} (streamed blocks only), then {@link #done} or {@link #failed}
   * exactly once.
   */
  public interface Delivery {
    /** A streamed block begins: its length on the wire and uncompressed. */
    void started(long length, long rawLength);

    /** The next bytes of a streamed block; valid only during the call. */
    void data(ByteBuf data);

    /**
     * The block arrived verified (streamed, or written into its target file): {@code length} bytes.
     */
    void done(long length);

    /** The block will not come; bytes already streamed must be discarded. */
    void failed(ProtocolException error);
  }

  /**
   * Fetches {@code block} for a local client: streamed through {@code delivery} when it names no
   * target file, else written into that file, which the agent creates (it must not exist) directly
   * inside a directory of a block set {@code principal} registered.
   *
   * @param principal who asks: a client connection's identity, or {@code BlockRegistry.IN_PROCESS}
   * @param window bytes a stream may have in flight between agents
   * @param clientGrantsCredit whether the client grants credit for streamed bytes itself (a client
   *     connection); otherwise credit is granted as bytes are handed over
   * @param started receives the stream's handle once it is requested from the remote agent
   */
  public void fetch(
      String principal,
      String coflowId,
      RemoteBlock block,
      long window,
      boolean clientGrantsCredit,
      Delivery delivery,
      Consumer<FetchService.Handle> started) {
    Delivery logged = new Logged(coflowId, block, delivery);
    BlockSink sink;
    boolean autoCredit;
    if (block.getTargetFile().isEmpty()) {
      sink = new Streamed(logged);
      autoCredit = !clientGrantsCredit;
    } else {
      FileSink file;
      try {
        file =
            FileSink.create(
                registry.checkWritable(principal, block.getTargetFile()), registry.roots());
      } catch (ProtocolException e) {
        logged.failed(e);
        return;
      }
      sink = new Written(file, logged);
      autoCredit = true;
    }
    try {
      fetcher.fetch(coflowId, block, sink, window, autoCredit, started);
    } catch (RejectedExecutionException e) {
      // Through the sink: a target file created for the block is closed and removed.
      sink.fail(new ProtocolException(ErrorCode.ERROR_CODE_UNREACHABLE, "the agent is stopped", e));
    }
  }

  /** A delivery into a future of the block's length, streamed bytes handed to {@code data}. */
  public static Delivery completing(CompletableFuture<Long> done, Consumer<ByteBuf> data) {
    return new Delivery() {
      @Override
      public void started(long length, long rawLength) {}

      @Override
      public void data(ByteBuf bytes) {
        data.accept(bytes);
      }

      @Override
      public void done(long length) {
        done.complete(length);
      }

      @Override
      public void failed(ProtocolException error) {
        done.completeExceptionally(error);
      }
    };
  }

  /** Logs a failed block once, with its fields and cause, then passes everything on. */
  private static final class Logged implements Delivery {
    private final String coflow;
    private final RemoteBlock block;
    private final Delivery next;

    Logged(String coflow, RemoteBlock block, Delivery next) {
      this.coflow = coflow;
      this.block = block;
      this.next = next;
    }

    @Override
    public void started(long length, long rawLength) {
      next.started(length, rawLength);
    }

    @Override
    public void data(ByteBuf data) {
      next.data(data);
    }

    @Override
    public void done(long length) {
      next.done(length);
    }

    @Override
    public void failed(ProtocolException error) {
      if (error.code() == ErrorCode.ERROR_CODE_CANCELLED) {
        LOG.debug(
            "fetch cancelled coflow={} remote={} block={}/{}",
            coflow,
            block.getHostId(),
            block.getBlock().getBlockSet(),
            block.getBlock().getBlock());
      } else {
        LOG.warn(
            "fetch failed coflow={} remote={} block={}/{} code={}: {}",
            coflow,
            block.getHostId(),
            block.getBlock().getBlockSet(),
            block.getBlock().getBlock(),
            error.code(),
            error.getMessage(),
            error);
      }
      next.failed(error);
    }
  }

  /** A block streamed to the client as it arrives. */
  private static final class Streamed implements BlockSink {
    private final Delivery delivery;
    private long length;

    Streamed(Delivery delivery) {
      this.delivery = delivery;
    }

    @Override
    public void start(long length, long rawLength) {
      delivery.started(length, rawLength);
    }

    @Override
    public void write(ByteBuf data) {
      length += data.readableBytes();
      delivery.data(data);
    }

    @Override
    public void complete() {
      delivery.done(length);
    }

    @Override
    public void fail(ProtocolException error) {
      delivery.failed(error);
    }
  }

  /** A block written into the client's file; the client hears of it once it is there, verified. */
  private static final class Written implements BlockSink {
    private final FileSink file;
    private final Delivery delivery;
    private long length;

    Written(FileSink file, Delivery delivery) {
      this.file = file;
      this.delivery = delivery;
    }

    @Override
    public void start(long length, long rawLength) throws IOException {
      this.length = length;
      file.start(length, rawLength);
    }

    @Override
    public void write(ByteBuf data) throws IOException {
      file.write(data);
    }

    @Override
    public void complete() throws IOException {
      file.complete();
      delivery.done(length);
    }

    @Override
    public void fail(ProtocolException error) {
      file.fail(error);
      delivery.failed(error);
    }
  }
}
