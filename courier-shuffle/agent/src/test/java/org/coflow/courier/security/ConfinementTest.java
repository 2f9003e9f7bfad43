package org.coflow.courier.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;

/** Reads that try to leave the registered directories through links, before and after a check. */
class ConfinementTest extends AttackBase {
  @Test
  void aSubDirectoryThatLinksOutsideIsNotServed() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("root")).toRealPath();
    Path dir = Files.createDirectories(root.resolve("blockmgr"));
    Path outside = Files.createDirectories(tmp.resolve("outside")).toRealPath();
    // The map output lives outside; the executor's sub-directory links to it.
    ShuffleFiles.writeSparkMapOutput(new Random(4), List.of(outside), 0, 0, new int[] {50}, true);
    Path sub = ShuffleFiles.sparkPath(List.of(dir), 64, "shuffle_0_0_0.data").getParent();
    Path outsideSub = outside.resolve(sub.getFileName());
    Files.createDirectories(dir);
    Files.createSymbolicLink(sub, outsideSub);
    Path index = ShuffleFiles.sparkPath(List.of(dir), 64, "shuffle_0_0_0.index");
    if (!index.getParent().equals(sub)) {
      Files.createDirectories(index.getParent());
      Files.copy(ShuffleFiles.sparkPath(List.of(outside), 64, "shuffle_0_0_0.index"), index);
    }
    assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, refusal(root, dir));
  }

  /**
   * Registers {@code dir} with an agent serving {@code root}, fetches its block {@code
   * shuffle_0_0_0} through a second agent, and returns the code it was refused with (it must be).
   */
  private ErrorCode refusal(Path root, Path dir) throws Exception {
    try (CourierAgent source = Attack.standalone("src", root, null);
        CourierAgent agent = Attack.standalone("dst", root, null);
        CourierClient registrar = Attack.stranger(group, source);
        CourierClient client = Attack.stranger(group, agent)) {
      String set =
          registrar.register(Attack.spark("app-1", "0", dir, false)).get(10, TimeUnit.SECONDS);
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  Attack.fetch(
                          client,
                          Attack.block(source, set, "shuffle_0_0_0", null),
                          new ByteArrayOutputStream())
                      .get(10, TimeUnit.SECONDS));
      return ((ProtocolException) e.getCause()).code();
    }
  }

  @Test
  void aHardLinkInsideTheRootsToAFileOutsideIsNotServed() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("root")).toRealPath();
    Path dir = Files.createDirectories(root.resolve("blockmgr"));
    Path outside = Files.createDirectories(tmp.resolve("outside")).toRealPath();
    ShuffleFiles.writeSparkMapOutput(new Random(6), List.of(outside), 0, 0, new int[] {50}, false);
    for (String name : List.of("shuffle_0_0_0.data", "shuffle_0_0_0.index")) {
      Path inside = ShuffleFiles.sparkPath(List.of(dir), 64, name);
      Files.createDirectories(inside.getParent());
      Files.createLink(inside, ShuffleFiles.sparkPath(List.of(outside), 64, name));
    }
    assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, refusal(root, dir));
  }

  @Test
  void aDataFileSwappedForALinkAfterTheRequestIsNotFollowed() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("root")).toRealPath();
    Path dir = Files.createDirectories(root.resolve("blockmgr"));
    byte[][] parts =
        ShuffleFiles.writeSparkMapOutput(new Random(5), List.of(dir), 0, 0, new int[] {4096}, true);
    Path secret = Files.write(tmp.resolve("secret"), new byte[4096]);
    Path data = ShuffleFiles.sparkPath(List.of(dir), 64, "shuffle_0_0_0.data");
    try (CourierAgent source = Attack.standalone("src", root, null);
        CourierClient registrar = Attack.stranger(group, source);
        Attack.RawPeer peer = Attack.RawPeer.connect(group, source, "dst", Credentials.NONE)) {
      String set =
          registrar.register(Attack.spark("app-1", "0", dir, false)).get(10, TimeUnit.SECONDS);
      assertEquals(FrameType.HELLO_ACK, peer.next().type());
      // No credit: the block is checked and announced, but not a byte is sent yet.
      peer.request(1, set, "shuffle_0_0_0", 0);
      Frame start = peer.next();
      assertEquals(FrameType.BLOCK_START, start.type(), start.toString());
      // Now the data file becomes a link to a file outside the agent's directories.
      Path link = dir.resolve("swap-link");
      Files.createSymbolicLink(link, secret);
      Files.move(link, data, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      assertTrue(Files.isSymbolicLink(data));
      peer.send(
          Frame.of(FrameType.CREDIT, Credit.newBuilder().setStreamId(1).setBytes(1 << 20).build()));
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      while (true) {
        Frame f = peer.next();
        if (f.type() == FrameType.CHUNK) {
          got.write(Attack.RawPeer.body(f));
        } else if (f.type() == FrameType.BLOCK_ERROR) {
          BlockError err = f.header();
          throw new AssertionError("the block failed: " + err.getMessage());
        } else {
          assertEquals(FrameType.BLOCK_END, f.type(), f.toString());
          break;
        }
      }
      assertArrayEquals(parts[0], got.toByteArray(), "served from the file that was checked");
    }
  }
}
