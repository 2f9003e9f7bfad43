package org.coflow.testbed;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The baseline's map-side server, what Hadoop's ShuffleHandler is to its fetchers: a reducer
 * connects, names a coflow and its partition, and gets the partition's length and bytes sent
 * zero-copy from the map output file ({@code transferTo}). One thread per connection. Protocol:
 * request {@code int coflow, int mapHost, int reducer}, answer {@code long length} then the bytes;
 * a length of -1 means no such partition.
 */
final class ShuffleServer implements AutoCloseable {
  /** The port in every host's namespace (Hadoop's default shuffle port). */
  static final int PORT = 13562;

  private final ServerSocketChannel server;
  private final Path dir;
  private final ExecutorService threads = Executors.newCachedThreadPool(daemon());
  private final Thread acceptor;

  ShuffleServer(InetSocketAddress bind, Path dir) throws IOException {
    this.dir = dir;
    this.server = ServerSocketChannel.open();
    server.socket().setReuseAddress(true);
    server.bind(bind, 1024);
    this.acceptor = new Thread(this::accept, "shuffle-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private static java.util.concurrent.ThreadFactory daemon() {
    return r -> {
      Thread t = new Thread(r, "shuffle-serve");
      t.setDaemon(true);
      return t;
    };
  }

  private void accept() {
    while (server.isOpen()) {
      try {
        SocketChannel ch = server.accept();
        threads.execute(() -> serve(ch));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(SocketChannel ch) {
    try (ch) {
      ch.socket().setTcpNoDelay(true);
      DataInputStream in = new DataInputStream(ch.socket().getInputStream());
      int coflow = in.readInt();
      int host = in.readInt();
      int reducer = in.readInt();
      Path data = MapOutputs.dataFile(dir, coflow, host);
      Path index = data.resolveSibling("shuffle_" + coflow + "_" + host + "_0.index");
      ByteBuffer head = ByteBuffer.allocate(8);
      if (!Files.isRegularFile(index) || reducer < 0) {
        head.putLong(-1).flip();
        write(ch, head);
        return;
      }
      long offset;
      long length;
      try (FileChannel idx = FileChannel.open(index, StandardOpenOption.READ)) {
        ByteBuffer two = ByteBuffer.allocate(16);
        if (idx.read(two, 8L * reducer) < 16) {
          head.putLong(-1).flip();
          write(ch, head);
          return;
        }
        two.flip();
        offset = two.getLong();
        length = two.getLong() - offset;
      }
      head.putLong(length).flip();
      write(ch, head);
      try (FileChannel file = FileChannel.open(data, StandardOpenOption.READ)) {
        long sent = 0;
        while (sent < length) {
          sent += file.transferTo(offset + sent, length - sent, ch);
        }
      }
    } catch (IOException e) {
      // the reducer went away or the run ends: its fetch fails and says so on its side
    }
  }

  private static void write(SocketChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    threads.shutdownNow();
  }
}
