package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.zip.Checksum;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.serve.Checksums;

/**
 * One block arriving on a {@link PeerConnection}: verified as it arrives (offsets in order, length
 * as announced, each partition of a segment at its end, a block's checksum at its end) and written
 * to its sink, with the credit it was granted and the bytes not yet acknowledged. Event loop only.
 */
final class InStream {
  final String coflow;
  int priority;
  final BlockRef block;
  final BlockSink sink;
  final long streamWindow;
  final boolean autoCredit;
  private BlockStart start;
  private Checksum sum;
  long received;

  /** Credit granted so far (the first credit and every grant sent). */
  long credited;

  long unacknowledged;
  private final byte[] trailer = new byte[4];

  /** The host the block comes from, named in errors. */
  private final String remoteHost;

  InStream(
      String remoteHost,
      String coflow,
      int priority,
      BlockRef block,
      BlockSink sink,
      long streamWindow,
      boolean autoCredit) {
    this.remoteHost = remoteHost;
    this.coflow = coflow;
    this.priority = priority;
    this.block = block;
    this.sink = sink;
    this.streamWindow = streamWindow;
    this.autoCredit = autoCredit;
  }

  /**
   * A segment of several partitions: the partition being checked, where it ends, and the bytes
   * checked so far (a block is one part that ends at its length).
   */
  private int part;

  private long partEnd;
  private long checked;

  void begin(BlockStart s) throws IOException {
    if (start != null) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL, "a second BLOCK_START for " + block.getBlock());
    }
    if (s.getPartLengthsCount() > 0 && Checksums.IFILE.equals(s.getChecksumAlgorithm())) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "segment " + block.getBlock() + " lists partitions under IFILE checksums");
    }
    if (s.getPartLengthsCount() != s.getPartChecksumsCount()) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "segment "
              + block.getBlock()
              + " announces "
              + s.getPartLengthsCount()
              + " partition lengths but "
              + s.getPartChecksumsCount()
              + " checksums");
    }
    long total = 0;
    for (long n : s.getPartLengthsList()) {
      total += n;
      if (n < 0 || total < 0) {
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_PROTOCOL,
            "segment " + block.getBlock() + " announces a partition length out of range");
      }
    }
    if (s.getPartLengthsCount() > 0 && total != s.getLength()) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "segment "
              + block.getBlock()
              + " announces "
              + s.getLength()
              + " bytes but partitions of "
              + total);
    }
    start = s;
    sum = Checksums.create(s.getChecksumAlgorithm());
    partEnd = s.getPartLengthsCount() > 0 ? 0 : s.getLength();
    nextPart();
    sink.start(s.getLength(), s.getRawLength());
  }

  /** Moves past the partitions that end where the bytes received so far end (empty ones too). */
  private void nextPart() {
    while (part < start.getPartLengthsCount() && partEnd == checked) {
      partEnd += start.getPartLengths(part);
      if (partEnd > checked) {
        return;
      }
      part++; // an empty partition: no bytes to check
    }
  }

  /** Checks the partition that ends at {@code checked} against its announced checksum. */
  private void endPart() {
    if (start.getPartLengthsCount() == 0) {
      return;
    }
    long expected = start.getPartChecksums(part);
    if (sum.getValue() != expected) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_CORRUPT,
          mismatch("partition " + part + " of segment " + block.getBlock(), expected));
    }
    sum.reset();
    part++;
    nextPart();
  }

  /** {@code data} is the chunk's body from byte {@code piece} on (the decoder streams bodies). */
  void chunk(Chunk c, long piece, ByteBuf data) throws IOException {
    int n = data.readableBytes();
    long offset = c.getOffset() + piece;
    if (start == null || offset != received || received + n > start.getLength()) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_PROTOCOL,
          "chunk at offset "
              + offset
              + " of "
              + n
              + " bytes does not follow byte "
              + received
              + " of block "
              + block.getBlock());
    }
    if (Checksums.IFILE.equals(start.getChecksumAlgorithm())) {
      update(
          data,
          data.readerIndex(),
          (int) Math.max(0, Math.min(n, start.getLength() - 4 - received)));
      for (long p = Math.max(received, start.getLength() - 4); p < received + n; p++) {
        trailer[(int) (p - (start.getLength() - 4))] =
            data.getByte(data.readerIndex() + (int) (p - received));
      }
    } else {
      // A segment's partitions are checked as each ends; a block is one part checked at its end.
      int at = data.readerIndex();
      for (int left = n; left > 0; ) {
        int m = (int) Math.min(left, partEnd - checked);
        update(data, at, m);
        at += m;
        checked += m;
        left -= m;
        if (checked == partEnd && start.getPartLengthsCount() > 0) {
          endPart();
        }
      }
    }
    sink.write(data);
    received += n;
    unacknowledged += n;
  }

  /** Whether every byte announced has arrived (false before its start). */
  boolean complete() {
    return start != null && received >= start.getLength();
  }

  private void update(ByteBuf data, int index, int length) {
    if (data.hasArray()) {
      sum.update(data.array(), data.arrayOffset() + index, length);
    } else if (data.nioBufferCount() == 1) {
      sum.update(data.internalNioBuffer(index, length)); // no buffer allocated
    } else {
      for (java.nio.ByteBuffer b : data.nioBuffers(index, length)) {
        sum.update(b);
      }
    }
  }

  /** Why {@code what} is refused: its checksum is not the {@code expected} one. */
  private String mismatch(String what, long expected) {
    return what
        + " from host "
        + remoteHost
        + " is corrupt: "
        + start.getChecksumAlgorithm()
        + " "
        + Long.toHexString(sum.getValue())
        + ", expected "
        + Long.toHexString(expected);
  }

  /** Null if the bytes match the block's checksum, else why not. */
  String verify(BlockEnd end) {
    if (start == null || received != start.getLength() || end.getLength() != received) {
      return "block "
          + block.getBlock()
          + " ended after "
          + received
          + " of "
          + (start == null ? "?" : start.getLength())
          + " bytes";
    }
    if (start.getPartLengthsCount() > 0) {
      return null; // every partition was checked as it ended (all of them: received == length)
    }
    long expected = start.getChecksum();
    if (Checksums.IFILE.equals(start.getChecksumAlgorithm())) {
      if (received < 4) {
        return "MapReduce segment " + block.getBlock() + " is shorter than its checksum";
      }
      expected =
          ((trailer[0] & 0xffL) << 24)
              | ((trailer[1] & 0xffL) << 16)
              | ((trailer[2] & 0xffL) << 8)
              | (trailer[3] & 0xffL);
    }
    if (sum.getValue() != expected) {
      return mismatch("block " + block.getBlock(), expected);
    }
    return null;
  }
}
