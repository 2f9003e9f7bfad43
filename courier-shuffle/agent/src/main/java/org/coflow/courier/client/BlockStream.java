package org.coflow.courier.client;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.function.LongConsumer;

/**
 * One fetched block as a blocking {@link InputStream}, for engines that pull bytes (MapReduce's
 * {@code MapOutput.shuffle}). The agent sends no more than the window ahead of what was read:
 * credit goes back as the reader consumes, so a slow reader holds at most a window in memory.
 * {@link #read} fails with the agent's error if the block fails; end of stream comes only after the
 * agent vouched for every byte ({@code BLOCK_END}).
 */
public final class BlockStream extends InputStream {
  private final long window;
  private final LongConsumer credit;
  private final ArrayDeque<byte[]> chunks = new ArrayDeque<>();
  private byte[] current;
  private int pos;
  private long length = -1;
  private long rawLength = -1;
  private boolean ended;
  private IOException failure;
  private long consumed;
  private boolean closed;
  private Runnable cancel = () -> {};

  /** Fail a read that saw nothing arrive for this long (0: wait forever). */
  private long idleMillis;

  private long lastArrival = System.nanoTime();

  BlockStream(long window, LongConsumer credit) {
    this.window = window;
    this.credit = credit;
  }

  // ---- the connection's side (event loop) ----

  synchronized void started(long length, long rawLength) {
    lastArrival = System.nanoTime();
    this.length = length;
    this.rawLength = rawLength;
    notifyAll();
  }

  synchronized void offer(ByteBuf data) {
    if (closed) {
      return;
    }
    byte[] b = new byte[data.readableBytes()];
    data.getBytes(data.readerIndex(), b);
    chunks.add(b);
    lastArrival = System.nanoTime();
    notifyAll();
  }

  synchronized void ended(long length) {
    ended = true;
    if (this.length < 0) {
      this.length = length;
      this.rawLength = length;
    }
    notifyAll();
  }

  synchronized void failed(IOException e) {
    if (failure == null && !ended) {
      failure = e;
    }
    notifyAll();
  }

  synchronized void onClose(Runnable r) {
    cancel = r;
  }

  // ---- the reader's side ----

  /**
   * Makes reads fail (and the block be cancelled) when nothing of it arrived for {@code millis}: a
   * serving host that died or a link that stalled must not hold the reader forever.
   */
  public synchronized BlockStream idleTimeout(long millis) {
    this.idleMillis = millis;
    return this;
  }

  /**
   * Waits for the block's start; its length in bytes (as served: for MapReduce, the IFile segment).
   */
  public synchronized long length() throws IOException {
    awaitStart();
    return length;
  }

  /** Waits for the block's start; MapReduce: the segment's uncompressed length; else the length. */
  public synchronized long rawLength() throws IOException {
    awaitStart();
    return rawLength;
  }

  private void awaitStart() throws IOException {
    while (length < 0 && failure == null) {
      waitUninterruptibly();
    }
    if (length < 0) {
      throw failure;
    }
  }

  private void waitUninterruptibly() throws IOException {
    try {
      if (idleMillis <= 0) {
        wait();
        return;
      }
      long idle = (System.nanoTime() - lastArrival) / 1_000_000;
      if (idle >= idleMillis) {
        failure =
            new java.net.SocketTimeoutException(
                "no bytes of the block arrived for " + idle + " ms");
        Runnable r = cancel;
        cancel = () -> {};
        // Cancelling sends a frame: not under this lock's wait, but it never blocks.
        r.run();
        throw failure;
      }
      wait(idleMillis - idle);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for a fetched block");
    }
  }

  /** Null at the end of the block; else a chunk with unread bytes. */
  private byte[] chunk() throws IOException {
    while (current == null || pos == current.length) {
      if (current != null) {
        consumed += current.length;
        current = null;
        if (consumed >= window / 2) {
          long n = consumed;
          consumed = 0;
          credit.accept(n);
        }
      }
      if (failure != null) {
        throw failure;
      }
      if (!chunks.isEmpty()) {
        current = chunks.poll();
        pos = 0;
      } else if (ended) {
        return null;
      } else {
        waitUninterruptibly();
      }
    }
    return current;
  }

  @Override
  public synchronized int read() throws IOException {
    byte[] c = chunk();
    return c == null ? -1 : c[pos++] & 0xff;
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    byte[] c = chunk();
    if (c == null) {
      return -1;
    }
    int n = Math.min(len, c.length - pos);
    System.arraycopy(c, pos, b, off, n);
    pos += n;
    return n;
  }

  @Override
  public synchronized int available() {
    int n = current == null ? 0 : current.length - pos;
    for (byte[] c : chunks) {
      n += c.length;
    }
    return n;
  }

  /** Stops the block if it is still coming (its bytes are dropped). */
  @Override
  public void close() {
    Runnable r;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      chunks.clear();
      current = null;
      r = ended || failure != null ? null : cancel;
      if (failure == null && !ended) {
        failure = new IOException("the block stream was closed");
      }
      notifyAll();
    }
    if (r != null) {
      r.run();
    }
  }
}
