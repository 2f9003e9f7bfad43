package org.coflow.courier.serve;

import java.nio.file.Path;

/**
 * Where a registered block's bytes are: a range of a local file, and how the receiver checks them.
 *
 * <p>{@link #checksumAlgorithm()} names what {@link #checksum()} is: {@code ADLER32} or {@code
 * CRC32} of the whole range (Spark's per-partition checksum files), {@code NONE} for a set without
 * engine checksums (unverified: nothing vouches for the bytes), or {@code IFILE} for MapReduce
 * segments, which carry their own CRC32 trailer in their last 4 bytes (the receiver checks the
 * trailer against the bytes before it).
 */
public final class BlockSegment implements AutoCloseable {
  private final Path file;
  private final java.nio.channels.FileChannel channel;
  private final long offset;
  private final long length;
  private final String checksumAlgorithm;
  private final long checksum;
  private final long rawLength;

  /**
   * @param channel the data file, opened when the request was checked (without following links);
   *     the segment owns it, and the sender closes it ({@link #close}) once the block is sent
   */
  BlockSegment(
      Path file,
      java.nio.channels.FileChannel channel,
      long offset,
      long length,
      String checksumAlgorithm,
      long checksum,
      long rawLength) {
    this.file = file;
    this.channel = channel;
    this.offset = offset;
    this.length = length;
    this.checksumAlgorithm = checksumAlgorithm;
    this.checksum = checksum;
    this.rawLength = rawLength;
  }

  public Path file() {
    return file;
  }

  /** The open data file the bytes are served from (never reopened by name). */
  public java.nio.channels.FileChannel channel() {
    return channel;
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (java.io.IOException e) {
      // nothing was written through it
    }
  }

  public long offset() {
    return offset;
  }

  public long length() {
    return length;
  }

  public String checksumAlgorithm() {
    return checksumAlgorithm;
  }

  public long checksum() {
    return checksum;
  }

  /**
   * MapReduce: the segment's uncompressed length (what a reducer's ShuffleHeader carries); else the
   * length.
   */
  public long rawLength() {
    return rawLength;
  }

  @Override
  public String toString() {
    return file + "[" + offset + "+" + length + "]";
  }
}
