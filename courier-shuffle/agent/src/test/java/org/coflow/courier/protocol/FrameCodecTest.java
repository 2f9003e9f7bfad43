package org.coflow.courier.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.BlockRequest;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.FetchRequest;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.HelloAck;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.Registered;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Round trips of every frame type, and the malformed input the decoder must refuse. */
@ExtendWith(LeakCheck.class)
class FrameCodecTest {
  private static final int MAX = 1 << 20;

  static Map<FrameType, MessageLite> samples() {
    BlockRef ref =
        BlockRef.newBuilder().setBlockSet("spark/app-1/3").setBlock("shuffle_0_5_2").build();
    Map<FrameType, MessageLite> m = new EnumMap<>(FrameType.class);
    m.put(
        FrameType.HELLO,
        Hello.newBuilder()
            .setRole(Role.ROLE_AGENT)
            .setHostId("exec-2")
            .setConnectionIndex(3)
            .build());
    m.put(
        FrameType.HELLO_ACK, HelloAck.newBuilder().setHostId("exec-1").setChunkSize(65536).build());
    m.put(
        FrameType.CHALLENGE,
        org.coflow.api.proto.courier.v1.Challenge.newBuilder()
            .setNonce(com.google.protobuf.ByteString.copyFrom(new byte[32]))
            .setHostId("exec-1")
            .setProof(com.google.protobuf.ByteString.copyFrom(new byte[] {1, 2, 3}))
            .build());
    m.put(
        FrameType.AUTH,
        org.coflow.api.proto.courier.v1.Auth.newBuilder()
            .setProof(com.google.protobuf.ByteString.copyFrom(new byte[] {4, 5}))
            .build());
    m.put(
        FrameType.ERROR,
        Error.newBuilder().setCode(ErrorCode.ERROR_CODE_PROTOCOL).setMessage("bad").build());
    m.put(
        FrameType.REGISTER_SPARK,
        RegisterSpark.newBuilder()
            .setAppId("app-1")
            .setExecId("3")
            .addLocalDirs("/tmp/a")
            .setSubDirsPerLocalDir(64)
            .setChecksumAlgorithm("ADLER32")
            .build());
    m.put(
        FrameType.REGISTER_MAPREDUCE,
        RegisterMapReduce.newBuilder()
            .setJobId("job_1_0001")
            .setUser("u")
            .addLocalDirs("/tmp/nm")
            .build());
    m.put(FrameType.REGISTERED, Registered.newBuilder().setBlockSet("mr/job_1_0001").build());
    m.put(
        FrameType.UNREGISTER,
        org.coflow.api.proto.courier.v1.Unregister.newBuilder()
            .setBlockSet("spark/app-1/1")
            .build());
    m.put(
        FrameType.FETCH_REQUEST,
        FetchRequest.newBuilder()
            .setRequestId(9)
            .setCoflowId("app-1/0")
            .addBlocks(
                RemoteBlock.newBuilder()
                    .setHostId("exec-2")
                    .setAgentAddress("127.0.0.1:7337")
                    .setBlock(ref)
                    .setSize(1234)
                    .setTargetFile("/tmp/out"))
            .build());
    m.put(
        FrameType.BLOCK_REQUEST,
        BlockRequest.newBuilder()
            .setStreamId(77)
            .setCoflowId("app-1/0")
            .setBlock(ref)
            .setDstHost("exec-1")
            .setCredit(1 << 20)
            .setPriority(3)
            .build());
    m.put(FrameType.CHUNK, Chunk.newBuilder().setStreamId(77).setOffset(65536).build());
    m.put(
        FrameType.BLOCK_END,
        BlockEnd.newBuilder()
            .setStreamId(77)
            .setLength(99)
            .setChecksum(12345)
            .setChecksumAlgorithm("ADLER32")
            .build());
    m.put(
        FrameType.BLOCK_ERROR,
        BlockError.newBuilder()
            .setStreamId(77)
            .setCode(ErrorCode.ERROR_CODE_NOT_FOUND)
            .setMessage("no such block")
            .build());
    m.put(FrameType.CREDIT, Credit.newBuilder().setStreamId(77).setBytes(1 << 16).build());
    m.put(
        FrameType.BLOCK_START,
        org.coflow.api.proto.courier.v1.BlockStart.newBuilder()
            .setStreamId(77)
            .setLength(5000)
            .setChecksumAlgorithm("IFILE")
            .setChecksum(99)
            .setRawLength(9000)
            .build());
    m.put(
        FrameType.CANCEL,
        org.coflow.api.proto.courier.v1.Cancel.newBuilder().setStreamId(77).build());
    m.put(
        FrameType.PRIORITY,
        org.coflow.api.proto.courier.v1.Priority.newBuilder()
            .setCoflowId("app-1/0")
            .setPriority(2)
            .build());
    return m;
  }

  /** Encodes {@code frame} and returns the bytes on the wire. */
  private static ByteBuf encode(Frame frame) throws Exception {
    EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
    assertTrue(out.writeOutbound(frame));
    ByteBuf wire = Unpooled.buffer();
    for (Object o; (o = out.readOutbound()) != null; ) {
      if (o instanceof ByteBuf) {
        wire.writeBytes((ByteBuf) o);
        ((ByteBuf) o).release();
      } else {
        DefaultFileRegion region = (DefaultFileRegion) o;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (WritableByteChannel ch = Channels.newChannel(bytes)) {
          while (region.transferred() < region.count()) {
            region.transferTo(ch, region.transferred());
          }
        }
        wire.writeBytes(bytes.toByteArray());
        region.release();
      }
    }
    assertFalse(out.finish());
    return wire;
  }

  private static Frame decode(ByteBuf wire) {
    EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX));
    in.writeInbound(wire);
    Frame f = in.readInbound();
    assertNull(in.readInbound(), "one frame in, one frame out");
    in.finishAndReleaseAll();
    return f;
  }

  @Test
  void everyFrameTypeRoundTrips() throws Exception {
    Map<FrameType, MessageLite> samples = samples();
    assertEquals(FrameType.values().length, samples.size(), "a sample per frame type");
    for (Map.Entry<FrameType, MessageLite> e : samples.entrySet()) {
      Frame sent =
          e.getKey().hasBody()
              ? Frame.withBody(
                  e.getKey(),
                  e.getValue(),
                  Unpooled.copiedBuffer("chunk bytes", StandardCharsets.UTF_8))
              : Frame.of(e.getKey(), e.getValue());
      Frame got = decode(encode(sent));
      try {
        assertEquals(e.getKey(), got.type());
        assertEquals(e.getValue(), got.header(), e.getKey() + " header");
        if (e.getKey().hasBody()) {
          assertEquals("chunk bytes", ((ByteBuf) got.body()).toString(StandardCharsets.UTF_8));
        } else {
          assertNull(got.body());
        }
      } finally {
        got.release();
      }
    }
  }

  @Test
  void fileBodiesAreWrittenAsFileRegions(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("shuffle_0_0_0.data");
    byte[] content = new byte[100_000];
    new java.util.Random(7).nextBytes(content);
    Files.write(file, content);
    DefaultFileRegion region = new DefaultFileRegion(file.toFile(), 1000, 50_000);
    EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
    out.writeOutbound(
        Frame.withFile(FrameType.CHUNK, Chunk.newBuilder().setStreamId(1).build(), region));
    ByteBuf prefix = out.readOutbound();
    Object body = out.readOutbound();
    assertTrue(body instanceof DefaultFileRegion, "the body stays a FileRegion (zero-copy)");
    prefix.release();
    ((DefaultFileRegion) body).release();
    out.finishAndReleaseAll();

    Frame got =
        decode(
            encode(
                Frame.withFile(
                    FrameType.CHUNK,
                    Chunk.newBuilder().setStreamId(1).build(),
                    new DefaultFileRegion(file.toFile(), 1000, 50_000))));
    byte[] received = new byte[50_000];
    ((ByteBuf) got.body()).readBytes(received);
    got.release();
    assertArrayEquals(java.util.Arrays.copyOfRange(content, 1000, 51_000), received);
  }

  @Test
  void framesSplitAcrossReadsAreReassembled() throws Exception {
    ByteBuf wire =
        encode(Frame.of(FrameType.CREDIT, Credit.newBuilder().setStreamId(5).setBytes(7).build()));
    EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX));
    while (wire.isReadable()) {
      in.writeInbound(wire.readRetainedSlice(1));
    }
    wire.release();
    Frame f = in.readInbound();
    assertEquals(Credit.newBuilder().setStreamId(5).setBytes(7).build(), f.header());
    in.finishAndReleaseAll();
  }

  @Test
  void aStreamingDecoderPassesChunkBodiesOnAsTheyArrive() throws Exception {
    byte[] body = new byte[100_000];
    new java.util.Random(3).nextBytes(body);
    Chunk header = Chunk.newBuilder().setStreamId(9).setOffset(1 << 20).build();
    Credit credit = Credit.newBuilder().setStreamId(9).setBytes(4096).build();
    ByteBuf wire = encode(Frame.withBody(FrameType.CHUNK, header, Unpooled.wrappedBuffer(body)));
    ByteBuf tail = encode(Frame.of(FrameType.CREDIT, credit));
    wire.writeBytes(tail);
    tail.release();
    EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX, true));
    // Reads of 7 bytes first (the header arrives in parts), then of 7000.
    for (int read = 7; wire.isReadable(); read = 7000) {
      in.writeInbound(wire.readRetainedSlice(Math.min(read, wire.readableBytes())));
    }
    wire.release();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    int pieces = 0;
    for (Frame f; (f = in.readInbound()) != null; ) {
      try {
        if (f.type() == FrameType.CREDIT) {
          assertEquals(credit, f.header(), "the frame after the chunk arrives whole");
          assertEquals(body.length, got.size(), "the credit comes after the chunk's last piece");
          continue;
        }
        assertEquals(FrameType.CHUNK, f.type());
        assertEquals(header, f.header(), "every piece carries the chunk's header");
        assertEquals(
            got.size(), f.bodyOffset(), "pieces arrive in order, each saying where it starts");
        ByteBuf b = (ByteBuf) f.body();
        assertTrue(b.readableBytes() <= 7000, "a piece is at most one read");
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        got.write(bytes);
        pieces++;
      } finally {
        f.release();
      }
    }
    assertArrayEquals(body, got.toByteArray());
    assertTrue(pieces >= body.length / 7000, "the body came in pieces, not gathered: " + pieces);
    assertFalse(in.finishAndReleaseAll());
  }

  @Test
  void aWholeFrameDecoderGathersChunksSplitAcrossReads() throws Exception {
    byte[] body = new byte[100_000];
    new java.util.Random(4).nextBytes(body);
    ByteBuf wire =
        encode(
            Frame.withBody(
                FrameType.CHUNK,
                Chunk.newBuilder().setStreamId(2).build(),
                Unpooled.wrappedBuffer(body)));
    EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX));
    while (wire.isReadable()) {
      in.writeInbound(wire.readRetainedSlice(Math.min(7000, wire.readableBytes())));
    }
    wire.release();
    Frame f = in.readInbound();
    try {
      assertEquals(0, f.bodyOffset());
      byte[] bytes = new byte[body.length];
      ((ByteBuf) f.body()).readBytes(bytes);
      assertArrayEquals(body, bytes);
    } finally {
      f.release();
    }
    assertNull(in.readInbound());
    in.finishAndReleaseAll();
  }

  private static ProtocolException refused(ByteBuf wire) {
    // Both kinds of decoder refuse the same input the same way.
    EmbeddedChannel streaming = new EmbeddedChannel(new FrameDecoder(MAX, true));
    DecoderException s =
        assertThrows(
            DecoderException.class, () -> streaming.writeInbound(wire.retainedDuplicate()));
    streaming.finishAndReleaseAll();
    EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX));
    DecoderException e = assertThrows(DecoderException.class, () -> in.writeInbound(wire));
    assertEquals(e.getCause().getMessage(), s.getCause().getMessage());
    in.finishAndReleaseAll();
    assertTrue(e.getCause() instanceof ProtocolException, "cause: " + e.getCause());
    return (ProtocolException) e.getCause();
  }

  @Test
  void malformedFramesAreRefusedWithTheOffendingValue() {
    ProtocolException e = refused(Unpooled.buffer().writeInt(5).writeByte(0x7f).writeInt(0));
    assertTrue(e.getMessage().contains("unknown frame type 127"), e.getMessage());

    e =
        refused(
            Unpooled.buffer()
                .writeInt(9)
                .writeByte(FrameType.CREDIT.id())
                .writeInt(1000)
                .writeInt(0));
    assertTrue(e.getMessage().contains("header length 1000"), e.getMessage());

    e =
        refused(
            Unpooled.buffer()
                .writeInt(9)
                .writeByte(FrameType.CREDIT.id())
                .writeInt(-4)
                .writeInt(0));
    assertTrue(e.getMessage().contains("header length -4"), e.getMessage());

    e = refused(Unpooled.buffer().writeInt(3).writeByte(FrameType.CREDIT.id()).writeShort(0));
    assertTrue(e.getMessage().contains("shorter"), e.getMessage());

    e = refused(Unpooled.buffer().writeInt(MAX + 1).writeByte(FrameType.CHUNK.id()));
    assertTrue(e.getMessage().contains("longer than the limit"), e.getMessage());

    e =
        refused(
            Unpooled.buffer()
                .writeInt(5 + 3)
                .writeByte(FrameType.CREDIT.id())
                .writeInt(0)
                .writeMedium(1));
    assertTrue(e.getMessage().contains("takes none"), e.getMessage());

    e =
        refused(
            Unpooled.buffer()
                .writeInt(5 + 2)
                .writeByte(FrameType.CREDIT.id())
                .writeInt(2)
                .writeByte(0x0a)
                .writeByte(0x7f));
    assertTrue(e.getMessage().contains("malformed header"), e.getMessage());
  }

  @Test
  void preambleAcceptsThisVersionAndRefusesOthers() {
    EmbeddedChannel ok = new EmbeddedChannel(new Preamble.Check(), new FrameDecoder(MAX));
    ok.writeInbound(Preamble.encode(ok.alloc(), Preamble.VERSION));
    assertNull(ok.pipeline().get(Preamble.Check.class), "the check removes itself");
    assertTrue(ok.isOpen());
    ok.finishAndReleaseAll();

    EmbeddedChannel old = new EmbeddedChannel(new Preamble.Check());
    DecoderException e =
        assertThrows(
            DecoderException.class, () -> old.writeInbound(Preamble.encode(old.alloc(), 7)));
    assertEquals(
        ErrorCode.ERROR_CODE_UNSUPPORTED_VERSION, ((ProtocolException) e.getCause()).code());
    assertTrue(e.getCause().getMessage().contains("protocol version 7"), e.getMessage());
    old.finishAndReleaseAll();

    EmbeddedChannel http = new EmbeddedChannel(new Preamble.Check());
    e =
        assertThrows(
            DecoderException.class,
            () ->
                http.writeInbound(
                    Unpooled.copiedBuffer("GET / HTTP/1.1\r\n", StandardCharsets.US_ASCII)));
    assertTrue(e.getCause().getMessage().contains("does not speak the Courier protocol"));
    assertFalse(http.isOpen());
    http.finishAndReleaseAll();
  }
}
