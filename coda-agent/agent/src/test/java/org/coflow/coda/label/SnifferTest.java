package org.coflow.coda.label;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.spark.network.buffer.NioManagedBuffer;
import org.apache.spark.network.protocol.ChunkFetchRequest;
import org.apache.spark.network.protocol.ChunkFetchSuccess;
import org.apache.spark.network.protocol.MessageEncoder;
import org.apache.spark.network.protocol.RpcRequest;
import org.apache.spark.network.protocol.StreamChunkId;
import org.apache.spark.network.shuffle.protocol.FetchShuffleBlocks;
import org.apache.spark.network.shuffle.protocol.OpenBlocks;
import org.junit.jupiter.api.Test;

/**
 * The label sniffer on the bytes the engines really send: Spark's frames made by Spark's own
 * encoder (network-common 3.5), Hadoop's fetch request as {@code HttpURLConnection} writes it; fed
 * in pieces of every size, as reads return them.
 */
class SnifferTest {
  private static final String APP = "app-20261125011317-0000";

  /** What Spark's MessageEncoder puts on the wire for {@code messages}. */
  private static byte[] spark(Object... messages) {
    EmbeddedChannel ch = new EmbeddedChannel(MessageEncoder.INSTANCE);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object m : messages) {
      ch.writeOutbound(m);
      Object o;
      while ((o = ch.readOutbound()) != null) {
        if (o instanceof ByteBuf) {
          ByteBuf b = (ByteBuf) o;
          byte[] a = new byte[b.readableBytes()];
          b.readBytes(a);
          out.write(a, 0, a.length);
          b.release();
        } else {
          // MessageWithHeader: a FileRegion; copy it through a channel.
          io.netty.channel.FileRegion r = (io.netty.channel.FileRegion) o;
          java.nio.channels.WritableByteChannel sink = java.nio.channels.Channels.newChannel(out);
          try {
            while (r.transferred() < r.count()) {
              r.transferTo(sink, r.transferred());
            }
          } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
          }
          r.release();
        }
      }
    }
    return out.toByteArray();
  }

  private static RpcRequest rpc(ByteBuffer body) {
    return new RpcRequest(42, new NioManagedBuffer(body));
  }

  private static String feed(byte[] bytes, int piece, boolean direct) {
    Sniffer s = new Sniffer();
    for (int i = 0; i < bytes.length; i += piece) {
      int n = Math.min(piece, bytes.length - i);
      if (direct) {
        ByteBuffer b = ByteBuffer.allocateDirect(n + 3);
        b.position(3);
        b.put(bytes, i, n);
        s.accept(b, 3, n);
      } else {
        s.accept(bytes, i, n);
      }
    }
    return s.label();
  }

  private static void assertLabel(String expected, byte[] bytes) {
    for (int piece : new int[] {1, 2, 7, 9, 100, 4096, bytes.length}) {
      assertEquals(expected, feed(bytes, piece, false), "pieces of " + piece);
      assertEquals(expected, feed(bytes, piece, true), "direct pieces of " + piece);
    }
  }

  @Test
  void fetchShuffleBlocksNamesTheShuffle() {
    byte[] bytes =
        spark(
            rpc(
                new FetchShuffleBlocks(
                        APP, "2", 7, new long[] {5, 9}, new int[][] {{3}, {3, 4}}, false)
                    .toByteBuffer()));
    assertLabel("spark:" + APP + ":7", bytes);
  }

  @Test
  void openBlocksNamesTheShuffleOfItsFirstBlock() {
    byte[] bytes =
        spark(
            rpc(
                new OpenBlocks(APP, "1", new String[] {"shuffle_12_5_3", "shuffle_12_6_3"})
                    .toByteBuffer()));
    assertLabel("spark:" + APP + ":12", bytes);
  }

  @Test
  void theLatestRequestOnAConnectionWinsAndDataFramesAreSkipped() {
    byte[] data = new byte[300_000];
    new Random(1).nextBytes(data);
    byte[] bytes =
        spark(
            rpc(
                new FetchShuffleBlocks(APP, "2", 1, new long[] {5}, new int[][] {{0}}, false)
                    .toByteBuffer()),
            new ChunkFetchRequest(new StreamChunkId(77, 0)),
            new ChunkFetchSuccess(
                new StreamChunkId(77, 0), new NioManagedBuffer(ByteBuffer.wrap(data))),
            rpc(
                new FetchShuffleBlocks(APP, "2", 4, new long[] {6}, new int[][] {{0}}, false)
                    .toByteBuffer()));
    assertLabel("spark:" + APP + ":4", bytes);
  }

  @Test
  void hadoopsFetchRequestNamesTheJob() {
    String req =
        "GET /mapOutput?job=job_1700000000000_0001&reduce=0&map=attempt_1700000000000_0001_m_000000_0"
            + " HTTP/1.1\r\nUrlHash: abc\r\nname: mapreduce\r\nversion: 1.0.0\r\nHost: h:1\r\n"
            + "Connection: keep-alive\r\n\r\n";
    String next = req.replace("_0001", "_0002");
    assertLabel("mr:job_1700000000000_0002", (req + next).getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void anOverlongApplicationIdGivesNoLabel() {
    String app = "a".repeat(300);
    byte[] bytes =
        spark(
            rpc(
                new FetchShuffleBlocks(app, "2", 7, new long[] {5}, new int[][] {{3}}, false)
                    .toByteBuffer()));
    assertLabel(null, bytes);
  }

  @Test
  void anythingElseStopsTheSnifferAtOnce() {
    Sniffer s = new Sniffer();
    byte[] response = "HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc".getBytes();
    s.accept(response, 0, response.length);
    assertFalse(s.active());
    assertNull(s.label());
    Sniffer t = new Sniffer();
    byte[] junk = new byte[64];
    new Random(3).nextBytes(junk);
    junk[0] = (byte) 0xff;
    t.accept(junk, 0, junk.length);
    assertFalse(t.active());
    assertNull(t.label());
  }

  @Test
  void aLyingFrameLengthStopsTheSniffer() {
    byte[] bytes =
        spark(rpc(new OpenBlocks(APP, "1", new String[] {"shuffle_1_1_1"}).toByteBuffer()));
    ByteBuffer.wrap(bytes).putLong(0, 3); // shorter than the frame header itself
    Sniffer s = new Sniffer();
    s.accept(bytes, 0, bytes.length);
    assertFalse(s.active());
    assertNull(s.label());
  }
}
