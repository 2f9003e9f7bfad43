package org.coflow.courier.serve;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A chunk of a block sent zero-copy from a {@link FileChannel} the stream keeps open for all its
 * chunks (Netty's {@code DefaultFileRegion} would open and close the file for every 64 KiB).
 * Releasing the region does not close the channel: its stream does, after its last chunk.
 */
final class SegmentRegion extends AbstractReferenceCounted implements FileRegion {
  private final FileChannel file;
  private final long position;
  private final long count;
  private long transferred;

  SegmentRegion(FileChannel file, long position, long count) {
    this.file = file;
    this.position = position;
    this.count = count;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  @Deprecated
  public long transfered() {
    return transferred;
  }

  @Override
  public long transferred() {
    return transferred;
  }

  @Override
  public long transferTo(WritableByteChannel target, long at) throws IOException {
    long left = count - at;
    if (left < 0 || at < 0) {
      throw new IllegalArgumentException(
          "position " + at + " outside the region's " + count + " bytes");
    }
    if (left == 0) {
      return 0;
    }
    long written = file.transferTo(position + at, left, target);
    if (written > 0) {
      transferred += written;
    } else if (written == 0 && position + at >= file.size()) {
      throw new IOException(
          "the file shrank under a block being sent (at " + (position + at) + ")");
    }
    return written;
  }

  @Override
  protected void deallocate() {
    // The stream owns the file channel.
  }

  @Override
  public FileRegion retain() {
    super.retain();
    return this;
  }

  @Override
  public FileRegion retain(int increment) {
    super.retain(increment);
    return this;
  }

  @Override
  public FileRegion touch() {
    return this;
  }

  @Override
  public FileRegion touch(Object hint) {
    return this;
  }
}
