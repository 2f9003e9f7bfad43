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
 *
 * <p>A segment of several partitions ({@link #parts}) carries each partition's length and checksum
 * ({@link #partLengths()}, {@link #partChecksums()}); the receiver checks every partition at its
 * end, and {@link #checksum()} is then 0.
 */
public final class BlockSegment implements AutoCloseable {
  private final Path file;
  private final java.nio.channels.FileChannel channel;
  private final long offset;
  private final long length;
  private final String checksumAlgorithm;
  private final long checksum;
  private final long rawLength;
  private final long[] partLengths;
  private final long[] partChecksums;

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
    this(
        file,
        channel,
        offset,
        length,
        checksumAlgorithm,
        checksum,
        rawLength,
        new long[0],
        new long[0]);
  }

  private BlockSegment(
      Path file,
      java.nio.channels.FileChannel channel,
      long offset,
      long length,
      String checksumAlgorithm,
      long checksum,
      long rawLength,
      long[] partLengths,
      long[] partChecksums) {
    this.file = file;
    this.channel = channel;
    this.offset = offset;
    this.length = length;
    this.checksumAlgorithm = checksumAlgorithm;
    this.checksum = checksum;
    this.rawLength = rawLength;
    this.partLengths = partLengths;
    this.partChecksums = partChecksums;
  }

  /**
   * Consecutive partitions of one file as one segment: {@code partLengths[i]} bytes with checksum
   * {@code partChecksums[i]} each, from {@code offset} on.
   */
  static BlockSegment parts(
      Path file,
      java.nio.channels.FileChannel channel,
      long offset,
      String checksumAlgorithm,
      long[] partLengths,
      long[] partChecksums) {
    long length = 0;
    for (long n : partLengths) {
      length += n;
    }
    return new BlockSegment(
        file, channel, offset, length, checksumAlgorithm, 0, length, partLengths, partChecksums);
  }

  /** Each partition's length, in order; empty for a single block. */
  public long[] partLengths() {
    return partLengths.clone();
  }

  /** Each partition's checksum, in order; empty for a single block. */
  public long[] partChecksums() {
    return partChecksums.clone();
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
