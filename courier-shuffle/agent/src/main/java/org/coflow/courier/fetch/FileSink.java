package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.protocol.ProtocolException;

/**
 * Writes a block into a file the agent created for it, exclusively and without following links,
 * when the request was checked ({@link #create}); a failed block leaves no file behind, and only
 * that file is ever deleted.
 */
public final class FileSink implements BlockSink {
  private final Path target;
  private final java.util.List<Path> roots;
  private final CompletableFuture<Path> done = new CompletableFuture<>();
  private FileChannel channel;

  private FileSink(Path target, java.util.List<Path> roots, FileChannel channel) {
    this.target = target;
    this.roots = roots;
    this.channel = channel;
  }

  /**
   * Creates {@code target} (inside {@code roots}; it must not exist) and a sink writing into it.
   *
   * @throws ProtocolException INVALID if the file exists or cannot be created there
   */
  public static FileSink create(Path target, java.util.List<Path> roots) {
    try {
      return new FileSink(
          target, roots, org.coflow.courier.serve.SafeFiles.createNew(roots, target));
    } catch (java.nio.file.FileAlreadyExistsException e) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_INVALID,
          "target file " + target + " already exists: the agent writes only files it creates",
          e);
    } catch (IOException e) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_INVALID,
          "cannot create target file " + target + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * Completes with the file once the block arrived verified; fails with a {@link
   * ProtocolException}.
   */
  public CompletableFuture<Path> done() {
    return done;
  }

  @Override
  public void start(long length, long rawLength) {
    // The file was created when the request was checked.
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
    FileChannel c = channel;
    channel = null; // complete: never deleted afterwards
    c.close();
    done.complete(target);
  }

  @Override
  public void fail(ProtocolException error) {
    try {
      if (channel != null) {
        channel.close();
        channel = null;
        // Only the file this sink created: by the same link-free walk that created it.
        org.coflow.courier.serve.SafeFiles.delete(roots, target);
      }
    } catch (IOException e) {
      error.addSuppressed(e); // removing the partial file failed too: the owner's log shows both
    }
    done.completeExceptionally(error);
  }
}
