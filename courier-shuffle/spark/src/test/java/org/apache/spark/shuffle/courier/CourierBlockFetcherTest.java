package org.apache.spark.shuffle.courier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockBatchId;
import org.apache.spark.storage.ShuffleBlockId;
import org.coflow.courier.client.RemoteAgent;
import org.coflow.courier.protocol.HostPort;
import org.junit.jupiter.api.Test;
import scala.Option;

/** The reader's pure parts: which blocks are read together, and as what. */
class CourierBlockFetcherTest {
  private static final BlockManagerId EXEC_1 =
      BlockManagerId.apply("1", "host-a", 7001, Option.empty());
  private static final BlockManagerId EXEC_2 =
      BlockManagerId.apply("2", "host-b", 7002, Option.empty());
  private static final RemoteAgent AGENT =
      new RemoteAgent("1", HostPort.parse("127.0.0.1:7337", "test"));

  private static CourierBlockFetcher.Remote block(BlockManagerId where, long map, int reduce) {
    return new CourierBlockFetcher.Remote(
        where, new ShuffleBlockId(3, map, reduce), 100, (int) map, AGENT);
  }

  private static List<String> names(List<List<CourierBlockFetcher.Remote>> groups) {
    List<String> out = new ArrayList<>();
    for (List<CourierBlockFetcher.Remote> g : groups) {
      StringBuilder s = new StringBuilder();
      for (CourierBlockFetcher.Remote r : g) {
        s.append(s.length() == 0 ? "" : "+").append(r.block.name());
      }
      out.add(s.toString());
    }
    return out;
  }

  @Test
  void withoutBatchFetchEveryBlockIsItsOwnRead() {
    List<CourierBlockFetcher.Remote> blocks =
        List.of(block(EXEC_1, 5, 0), block(EXEC_1, 5, 1), block(EXEC_1, 5, 2));
    assertEquals(3, CourierBlockFetcher.group(blocks, false).size());
  }

  @Test
  void batchFetchMergesThePartitionsOfOneMapOutputOnOneExecutor() {
    List<CourierBlockFetcher.Remote> blocks =
        List.of(
            block(EXEC_1, 5, 0),
            block(EXEC_1, 5, 1),
            block(EXEC_1, 5, 2),
            block(EXEC_1, 5, 4), // partition 3 is empty (the tracker leaves it out): same run
            block(EXEC_1, 6, 5), // another map output
            block(EXEC_2, 6, 6), // same map id, another executor
            block(EXEC_2, 6, 7),
            block(EXEC_1, 5, 8)); // map 5 again, not adjacent: a run of its own, as in Spark
    assertEquals(
        List.of(
            "shuffle_3_5_0+shuffle_3_5_1+shuffle_3_5_2+shuffle_3_5_4",
            "shuffle_3_6_5",
            "shuffle_3_6_6+shuffle_3_6_7",
            "shuffle_3_5_8"),
        names(CourierBlockFetcher.group(blocks, true)));
  }

  @Test
  void aRunOverAnEmptyPartitionIsReadAsOneSegment() {
    List<List<CourierBlockFetcher.Remote>> groups =
        CourierBlockFetcher.group(List.of(block(EXEC_1, 9, 1), block(EXEC_1, 9, 4)), true);
    assertEquals(1, groups.size());
    assertEquals(
        new ShuffleBlockBatchId(3, 9, 1, 5), CourierBlockFetcher.blockToRead(3, groups.get(0)));
  }

  @Test
  void aRunIsReadAsTheBatchFromItsFirstToPastItsLastPartition() {
    List<List<CourierBlockFetcher.Remote>> groups =
        CourierBlockFetcher.group(
            List.of(
                block(EXEC_1, 9, 2),
                block(EXEC_1, 9, 3),
                block(EXEC_1, 9, 4),
                block(EXEC_1, 10, 0)),
            true);
    assertEquals(
        new ShuffleBlockBatchId(3, 9, 2, 5), CourierBlockFetcher.blockToRead(3, groups.get(0)));
    assertEquals(new ShuffleBlockId(3, 10, 0), CourierBlockFetcher.blockToRead(3, groups.get(1)));
  }

  private static ByteBuf direct(String text) {
    byte[] b = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    return Unpooled.directBuffer(b.length).writeBytes(b);
  }

  @Test
  void aDeliveredBlockIsReadFromTheAgentsBuffersEachReleasedOnceRead() {
    ByteBuf a = direct("abc");
    ByteBuf b = direct("defgh");
    ChunksStream in = new ChunksStream(List.of(a, b));
    byte[] buf = new byte[4];
    assertEquals(3, in.read(buf, 0, 4), "one read never spans two buffers");
    assertEquals(1, a.refCnt(), "a buffer is released only when the next read finds it empty");
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.write(buf, 0, 3);
    for (int n; (n = in.read(buf, 0, 4)) > 0; ) {
      all.write(buf, 0, n);
    }
    assertArrayEquals(
        "abcdefgh".getBytes(java.nio.charset.StandardCharsets.US_ASCII), all.toByteArray());
    assertEquals(0, a.refCnt());
    assertEquals(0, b.refCnt());
    in.close();
    assertEquals(-1, in.read(buf, 0, 4));
  }

  @Test
  void closingAPartlyReadBlockReleasesWhatIsLeftOnce() {
    ByteBuf a = direct("abc");
    ByteBuf b = direct("def");
    ByteBuf c = direct("ghi");
    ChunksStream in = new ChunksStream(List.of(a, b, c));
    assertEquals('a', in.read());
    in.close();
    in.close();
    assertEquals(0, a.refCnt());
    assertEquals(0, b.refCnt());
    assertEquals(0, c.refCnt());
    assertEquals(-1, in.read(), "nothing is read from released buffers");
  }

  @Test
  void aSmallPieceOfALargeReadIsCopiedSoTheReadIsNotPinned() {
    ByteBuf read = Unpooled.directBuffer(1 << 20);
    read.writeBytes(new byte[1 << 20]);
    read.setBytes(100, "piece".getBytes(StandardCharsets.UTF_8));
    ByteBuf kept = CourierBlockFetcher.keep(read.slice(100, 5));
    read.release();
    assertEquals(0, read.refCnt(), "a kept piece must not hold the agent's whole read");
    assertEquals(5, kept.readableBytes());
    assertEquals("piece", kept.toString(StandardCharsets.UTF_8));
    kept.release();
  }

  @Test
  void aPieceThatIsMostOfItsBufferIsKeptWithoutACopy() {
    ByteBuf read = direct("a whole chunk");
    ByteBuf kept = CourierBlockFetcher.keep(read.slice(0, read.readableBytes() - 1));
    assertEquals(2, read.refCnt(), "kept as a retained slice of the agent's buffer");
    read.release();
    assertEquals("a whole chun", kept.toString(StandardCharsets.UTF_8));
    kept.release();
    assertEquals(0, read.refCnt());
  }

  @Test
  void theRetryUsesSparksFetchAfterAGonePeerOrALocalOutOfMemory() {
    org.coflow.api.proto.courier.v1.ErrorCode unreachable =
        org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_UNREACHABLE;
    assertTrue(
        CourierBlockFetcher.readWithStockFetchAfter(
            new org.coflow.courier.protocol.ProtocolException(unreachable, "gone")));
    assertTrue(
        CourierBlockFetcher.readWithStockFetchAfter(
            new org.coflow.courier.protocol.ProtocolException(
                org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_IO,
                "the connection to host 1 failed: Cannot reserve 4194304 bytes of direct buffer"
                    + " memory",
                new OutOfMemoryError("Cannot reserve 4194304 bytes of direct buffer memory"))));
    assertFalse(
        CourierBlockFetcher.readWithStockFetchAfter(
            new org.coflow.courier.protocol.ProtocolException(
                org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_CORRUPT,
                "checksum mismatch")));
    assertFalse(CourierBlockFetcher.readWithStockFetchAfter(new java.io.IOException("reset")));
  }
}
