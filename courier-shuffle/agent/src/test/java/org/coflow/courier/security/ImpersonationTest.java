package org.coflow.courier.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;

/**
 * A fake agent claims a real host's id; a host's agent moves. Fetches must reach only an agent that
 * proves the host's id, and a dead address must not stay pinned.
 */
class ImpersonationTest extends AttackBase {
  @Test
  void aFakeAgentCannotServeForARealHostAndADeadAddressIsReplaced() throws Exception {
    Path root = tmp.toRealPath();
    Path secret = Attack.secretFile(tmp, "cluster.secret");
    Path real = Files.createDirectories(root.resolve("real"));
    Path fake = Files.createDirectories(root.resolve("fake"));
    byte[] good =
        ShuffleFiles.writeSparkMapOutput(
            new Random(6), List.of(real), 0, 0, new int[] {3000}, true)[0];
    byte[] evil = new byte[3000];
    java.util.Arrays.fill(evil, (byte) 'E');
    // The fake agent serves EVIL under the same set and block names, as host "exec-2".
    ShuffleFiles.writeSparkMapOutput(new Random(6), List.of(fake), 0, 0, new int[] {3000}, true);
    ShuffleFiles.write(ShuffleFiles.sparkPath(List.of(fake), 64, "shuffle_0_0_0.data"), evil);
    ShuffleFiles.write(
        ShuffleFiles.sparkPath(List.of(fake), 64, "shuffle_0_0_0.checksum.ADLER32"),
        java.nio.ByteBuffer.allocate(8).putLong(adler(evil)).array());
    try (CourierAgent victim = Attack.standalone("exec-2", root, secret);
        CourierAgent impostor = Attack.standalone("exec-2", root, null);
        CourierAgent fetcher = Attack.standalone("exec-1", root, secret);
        CourierClient victimRegistrar = Attack.member(group, victim, secret);
        CourierClient impostorRegistrar = Attack.stranger(group, impostor);
        CourierClient client = Attack.member(group, fetcher, secret)) {
      String set =
          victimRegistrar
              .register(Attack.spark("app-1", "2", real, true))
              .get(10, TimeUnit.SECONDS);
      impostorRegistrar.register(Attack.spark("app-1", "2", fake, true)).get(10, TimeUnit.SECONDS);
      // A request names the impostor's address for host exec-2: it cannot prove the host's id.
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      assertThrows(
          ExecutionException.class,
          () ->
              Attack.fetch(client, Attack.block(impostor, set, "shuffle_0_0_0", null), got)
                  .get(10, TimeUnit.SECONDS));
      assertFalse(new String(got.toByteArray()).contains("EEEE"), "no byte of the impostor's");
      // The real agent's address replaces the refused one.
      ByteArrayOutputStream real1 = new ByteArrayOutputStream();
      Attack.fetch(client, Attack.block(victim, set, "shuffle_0_0_0", null), real1)
          .get(10, TimeUnit.SECONDS);
      assertArrayEquals(good, real1.toByteArray());
    }
  }

  @Test
  void aHostWhoseAgentMovedIsReachedAtItsNewAddress() throws Exception {
    Path root = tmp.toRealPath();
    Path secret = Attack.secretFile(tmp, "cluster.secret");
    Path dir = Files.createDirectories(root.resolve("exec-2"));
    byte[] good =
        ShuffleFiles.writeSparkMapOutput(new Random(7), List.of(dir), 0, 0, new int[] {500}, true)[
            0];
    try (CourierAgent fetcher = Attack.standalone("exec-1", root, secret);
        CourierClient client = Attack.member(group, fetcher, secret)) {
      String set;
      try (CourierAgent first = Attack.standalone("exec-2", root, secret);
          CourierClient registrar = Attack.member(group, first, secret)) {
        set = registrar.register(Attack.spark("app-1", "2", dir, true)).get(10, TimeUnit.SECONDS);
        Attack.fetch(
                client,
                Attack.block(first, set, "shuffle_0_0_0", null),
                new ByteArrayOutputStream())
            .get(10, TimeUnit.SECONDS);
      }
      // The host's agent restarts elsewhere (a new port): the first address is dead.
      try (CourierAgent second =
              Attack.standalone("exec-2", root, secret, AgentOptions.forHost("exec-2"));
          CourierClient registrar = Attack.member(group, second, secret)) {
        registrar.register(Attack.spark("app-1", "2", dir, true)).get(10, TimeUnit.SECONDS);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        Attack.fetch(client, Attack.block(second, set, "shuffle_0_0_0", null), got)
            .get(10, TimeUnit.SECONDS);
        assertArrayEquals(good, got.toByteArray());
        assertEquals(1, fetcher.dataConnectionsTo("exec-2"));
      }
    }
  }

  @Test
  void aRelayThatPassesTheHandshakeThroughIsRefusedByBothEnds() throws Exception {
    Path root = tmp.toRealPath();
    Path secret = Attack.secretFile(tmp, "cluster.secret");
    Path dir = Files.createDirectories(root.resolve("exec-2"));
    byte[] good =
        ShuffleFiles.writeSparkMapOutput(new Random(11), List.of(dir), 0, 0, new int[] {800}, true)[
            0];
    try (CourierAgent real = Attack.standalone("exec-2", root, secret);
        CourierAgent fetcher = Attack.standalone("exec-1", root, secret);
        CourierClient registrar = Attack.member(group, real, secret);
        CourierClient client = Attack.member(group, fetcher, secret);
        Relay relay = new Relay(real.address())) {
      String set =
          registrar.register(Attack.spark("app-1", "2", dir, true)).get(10, TimeUnit.SECONDS);
      // A client names the relay as exec-2's agent; the relay forwards every byte both ways.
      RemoteBlock viaRelay =
          Attack.block(real, set, "shuffle_0_0_0", null).toBuilder()
              .setAgentAddress("127.0.0.1:" + relay.port())
              .build();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      assertThrows(
          ExecutionException.class,
          () -> Attack.fetch(client, viaRelay, got).get(10, TimeUnit.SECONDS));
      assertEquals(0, got.size(), "nothing came through the relay");
      assertTrue(relay.forwarded() > 0, "the relay did pass the handshake on");
      ByteArrayOutputStream direct = new ByteArrayOutputStream();
      Attack.fetch(client, Attack.block(real, set, "shuffle_0_0_0", null), direct)
          .get(10, TimeUnit.SECONDS);
      assertArrayEquals(good, direct.toByteArray());
    }
  }

  /** A TCP relay on loopback in front of {@code target}: forwards both ways, counts bytes. */
  static final class Relay implements AutoCloseable {
    private final java.net.ServerSocket server = new java.net.ServerSocket(0, 50, localhost());
    private final java.util.concurrent.atomic.AtomicLong bytes =
        new java.util.concurrent.atomic.AtomicLong();
    private final List<java.net.Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

    Relay(java.net.InetSocketAddress target) throws java.io.IOException {
      Thread t =
          new Thread(
              () -> {
                try {
                  while (true) {
                    java.net.Socket in = server.accept();
                    java.net.Socket out =
                        new java.net.Socket(target.getAddress(), target.getPort());
                    sockets.add(in);
                    sockets.add(out);
                    pipe(in, out);
                    pipe(out, in);
                  }
                } catch (java.io.IOException e) {
                  // closed
                }
              },
              "relay");
      t.setDaemon(true);
      t.start();
    }

    private static java.net.InetAddress localhost() throws java.io.IOException {
      return java.net.InetAddress.getByName("127.0.0.1");
    }

    private void pipe(java.net.Socket from, java.net.Socket to) {
      Thread t =
          new Thread(
              () -> {
                byte[] buf = new byte[8192];
                try {
                  int n;
                  while ((n = from.getInputStream().read(buf)) >= 0) {
                    to.getOutputStream().write(buf, 0, n);
                    bytes.addAndGet(n);
                  }
                } catch (java.io.IOException e) {
                  // one side closed
                } finally {
                  closeQuietly(from);
                  closeQuietly(to);
                }
              },
              "relay-pipe");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return server.getLocalPort();
    }

    long forwarded() {
      return bytes.get();
    }

    @Override
    public void close() throws java.io.IOException {
      server.close();
      sockets.forEach(Relay::closeQuietly);
    }

    private static void closeQuietly(java.net.Socket s) {
      try {
        s.close();
      } catch (java.io.IOException e) {
        // closed
      }
    }
  }

  private static long adler(byte[] b) {
    java.util.zip.Adler32 a = new java.util.zip.Adler32();
    a.update(b);
    return a.getValue();
  }
}
