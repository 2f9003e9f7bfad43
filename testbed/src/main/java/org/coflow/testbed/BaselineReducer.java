package org.coflow.testbed;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * A reducer as Hadoop's shuffle runs one, without agents: up to {@code fetchers} copier threads
 * (Hadoop's {@code mapreduce.reduce.shuffle.parallelcopies}, 5), each taking the next map host in a
 * random order and fetching this reducer's partition from it over a connection of its own, then
 * closing it (Hadoop's default: no keep-alive). Every block's CRC32 is summed for the caller to
 * check.
 */
final class BaselineReducer {
  /** One block to fetch: the map host, its address and the partition's size. */
  record Source(int host, InetSocketAddress address, long size) {}

  /** What a reducer got: bytes and the sum of its blocks' CRC32s. */
  record Outcome(long bytes, long crcSum) {}

  private BaselineReducer() {}

  static CompletableFuture<Outcome> fetch(
      ExecutorService threads, int coflow, int reducer, List<Source> sources, int fetchers) {
    List<Source> order = new ArrayList<>(sources);
    Collections.shuffle(order, new Random(31L * coflow + reducer));
    ConcurrentLinkedQueue<Source> queue = new ConcurrentLinkedQueue<>(order);
    AtomicLong bytes = new AtomicLong();
    AtomicLong crcs = new AtomicLong();
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    int n = Math.max(1, Math.min(fetchers, order.size()));
    AtomicInteger running = new AtomicInteger(n);
    for (int f = 0; f < n; f++) {
      threads.execute(
          () -> {
            try {
              for (Source s; (s = queue.poll()) != null && !done.isDone(); ) {
                long[] got = copy(coflow, reducer, s);
                bytes.addAndGet(got[0]);
                crcs.addAndGet(got[1]);
              }
              if (running.decrementAndGet() == 0) {
                done.complete(new Outcome(bytes.get(), crcs.get()));
              }
            } catch (IOException | RuntimeException e) {
              done.completeExceptionally(e);
            }
          });
    }
    return done;
  }

  /** One copy: connect, ask, read and check length and bytes, close. */
  private static long[] copy(int coflow, int reducer, Source s) throws IOException {
    try (SocketChannel ch = SocketChannel.open(s.address())) {
      ch.socket().setTcpNoDelay(true);
      ByteBuffer req = ByteBuffer.allocate(12).putInt(coflow).putInt(s.host()).putInt(reducer);
      req.flip();
      while (req.hasRemaining()) {
        ch.write(req);
      }
      ByteBuffer head = ByteBuffer.allocate(8);
      readFully(ch, head);
      long length = head.flip().getLong();
      if (length != s.size()) {
        throw new IOException(
            "host "
                + s.host()
                + " answered "
                + length
                + " bytes for coflow "
                + coflow
                + " reducer "
                + reducer
                + ", expected "
                + s.size());
      }
      CRC32 crc = new CRC32();
      ByteBuffer buf = ByteBuffer.allocateDirect(256 << 10);
      long left = length;
      while (left > 0) {
        buf.clear().limit((int) Math.min(buf.capacity(), left));
        int r = ch.read(buf);
        if (r < 0) {
          throw new IOException(
              "host " + s.host() + " closed with " + left + " bytes of coflow " + coflow + " due");
        }
        buf.flip();
        crc.update(buf);
        left -= r;
      }
      return new long[] {length, length > 0 ? crc.getValue() : 0};
    }
  }

  private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        throw new IOException("connection closed before the answer");
      }
    }
  }
}
