package org.coflow.courier.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.Frame;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;

/** Bytes changed on disk after the engine wrote them are never served as good. */
class IntegrityTest extends AttackBase {
  private static void flipFirstByte(Path file) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      int b = f.read();
      f.seek(0);
      f.write(b ^ 0xff);
    }
  }

  @Test
  void withoutEngineChecksumsABlockIsServedAsUnverifiedNeverVouchedFor() throws Exception {
    Path root = tmp.toRealPath();
    Path dir = Files.createDirectories(root.resolve("exec"));
    ShuffleFiles.writeSparkMapOutput(new Random(9), List.of(dir), 0, 0, new int[] {1000}, false);
    try (CourierAgent source = Attack.standalone("src", root, null);
        CourierClient registrar = Attack.stranger(group, source);
        Attack.RawPeer peer = Attack.RawPeer.connect(group, source, "dst", Credentials.NONE)) {
      String set =
          registrar.register(Attack.spark("app-1", "0", dir, false)).get(10, TimeUnit.SECONDS);
      flipFirstByte(ShuffleFiles.sparkPath(List.of(dir), 64, "shuffle_0_0_0.data"));
      assertEquals(FrameType.HELLO_ACK, peer.next().type());
      peer.request(1, set, "shuffle_0_0_0", 1 << 20);
      Frame start = peer.next();
      assertEquals(FrameType.BLOCK_START, start.type());
      BlockStart s = start.header();
      assertEquals(
          "NONE",
          s.getChecksumAlgorithm(),
          "a checksum the agent computes at the first serve would vouch for the flipped byte");
    }
  }

  @Test
  void withEngineChecksumsAByteFlippedAfterTheMapWroteIsDetected() throws Exception {
    Path root = tmp.toRealPath();
    Path dir = Files.createDirectories(root.resolve("exec"));
    ShuffleFiles.writeSparkMapOutput(new Random(10), List.of(dir), 0, 0, new int[] {1000}, true);
    try (CourierAgent source = Attack.standalone("src", root, null);
        CourierAgent agent = Attack.standalone("dst", root, null);
        CourierClient registrar = Attack.stranger(group, source);
        CourierClient client = Attack.stranger(group, agent)) {
      String set =
          registrar.register(Attack.spark("app-1", "0", dir, true)).get(10, TimeUnit.SECONDS);
      flipFirstByte(ShuffleFiles.sparkPath(List.of(dir), 64, "shuffle_0_0_0.data"));
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  Attack.fetch(
                          client,
                          Attack.block(source, set, "shuffle_0_0_0", null),
                          new ByteArrayOutputStream())
                      .get(10, TimeUnit.SECONDS));
      assertEquals(ErrorCode.ERROR_CODE_CORRUPT, ((ProtocolException) e.getCause()).code());
    }
  }
}
