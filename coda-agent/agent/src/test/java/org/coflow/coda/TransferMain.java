package org.coflow.coda;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * A host application for the fault tests, run in its own JVM with the agent: moves random bytes
 * over loopback through a SocketChannel, a transferTo from a file and Socket streams, and exits 0
 * only if every byte arrived intact. It stays up {@code args[0]} milliseconds more, so the agent
 * has time to fail at whatever it fails at.
 */
public final class TransferMain {
  public static void main(String[] args) throws Exception {
    byte[] data = new byte[8 << 20];
    new Random(11).nextBytes(data);
    byte[] want = MessageDigest.getInstance("SHA-256").digest(data);
    try (ServerSocketChannel server =
        ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
      CompletableFuture<byte[]> got = read(server);
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        ByteBuffer b = ByteBuffer.wrap(data);
        while (b.hasRemaining()) {
          c.write(b);
        }
      }
      check(want, got.get());
      Path file = Files.createTempFile("transfer", ".bin");
      Files.write(file, data);
      CompletableFuture<byte[]> got2 = read(server);
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress());
          FileChannel f = FileChannel.open(file)) {
        long pos = 0;
        while (pos < data.length) {
          pos += f.transferTo(pos, data.length - pos, c);
        }
      } finally {
        Files.delete(file);
      }
      check(want, got2.get());
    }
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      CompletableFuture<byte[]> got =
          CompletableFuture.supplyAsync(
              () -> {
                try (Socket s = server.accept();
                    InputStream in = s.getInputStream()) {
                  return in.readAllBytes();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      try (Socket s = new Socket(server.getInetAddress(), server.getLocalPort());
          OutputStream out = s.getOutputStream()) {
        out.write(data);
      }
      check(want, got.get());
    }
    Thread.sleep(Long.parseLong(args[0]));
    System.out.println("transfers intact");
  }

  private static CompletableFuture<byte[]> read(ServerSocketChannel server) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (SocketChannel s = server.accept()) {
            return s.socket().getInputStream().readAllBytes();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static void check(byte[] want, byte[] got) throws Exception {
    if (!Arrays.equals(want, MessageDigest.getInstance("SHA-256").digest(got))) {
      throw new IllegalStateException("bytes differ");
    }
  }
}
