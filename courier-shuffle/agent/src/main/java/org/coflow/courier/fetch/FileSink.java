package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import org.coflow.courier.protocol.ProtocolException;

/** Writes a block into a file (created or truncated); a failed block leaves no file behind. */
public final class FileSink implements BlockSink {
  private final Path target;
  private final CompletableFuture<Path> done = new CompletableFuture<>();
  private FileChannel channel;

  public FileSink(Path target) {
    this.target = target;
  }

  /**
   * Completes with the file once the block arrived verified; fails with a {@link
   * ProtocolException}.
   */
  public CompletableFuture<Path> done() {
    return done;
  }

  @Override
  public void start(long length, long rawLength) throws IOException {
    channel =
        FileChannel.open(
            target,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
  }

  /**
   * Appends the bytes. Bytes that span socket reads arrive as several buffers: one gathering write
   * for all of them at the file's position, not one positional write each.
   */
  @Override
  public void write(ByteBuf data) throws IOException {
    if (data.nioBufferCount() == 1) {
      // The usual case (a piece of one socket read): the buffer's own view, nothing allocated.
      ByteBuffer part = data.internalNioBuffer(data.readerIndex(), data.readableBytes());
      while (part.hasRemaining()) {
        channel.write(part);
      }
      data.skipBytes(data.readableBytes());
      return;
    }
    ByteBuffer[] parts = data.nioBuffers();
    long left = data.readableBytes();
    while (left > 0) {
      long n = channel.write(parts);
      left -= n;
    }
    data.skipBytes(data.readableBytes());
  }

  @Override
  public void complete() throws IOException {
    channel.close();
    done.complete(target);
  }

  @Override
  public void fail(ProtocolException error) {
    try {
      if (channel != null) {
        channel.close();
        Files.deleteIfExists(target);
      }
    } catch (IOException e) {
      error.addSuppressed(e); // removing the partial file failed too: the owner's log shows both
    }
    done.completeExceptionally(error);
  }
}
