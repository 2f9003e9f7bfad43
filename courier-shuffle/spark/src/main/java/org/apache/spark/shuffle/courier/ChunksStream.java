package org.apache.spark.shuffle.courier;

import io.netty.buffer.ByteBuf;
import java.io.InputStream;
import java.util.List;

/**
 * Reads the buffers one after another, releasing each once read; closing it (or the task's end)
 * releases what is left.
 */
final class ChunksStream extends InputStream {
  private final List<ByteBuf> chunks;
  private int chunk;

  ChunksStream(List<ByteBuf> chunks) {
    this.chunks = chunks;
  }

  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) {
    if (len == 0) {
      return 0;
    }
    while (chunk < chunks.size() && !chunks.get(chunk).isReadable()) {
      chunks.get(chunk).release();
      chunk++;
    }
    if (chunk == chunks.size()) {
      return -1;
    }
    ByteBuf c = chunks.get(chunk);
    int n = Math.min(len, c.readableBytes());
    c.readBytes(b, off, n);
    return n;
  }

  @Override
  public synchronized int available() {
    return chunk < chunks.size() ? chunks.get(chunk).readableBytes() : 0;
  }

  @Override
  public synchronized void close() {
    for (; chunk < chunks.size(); chunk++) {
      chunks.get(chunk).release();
    }
  }
}
