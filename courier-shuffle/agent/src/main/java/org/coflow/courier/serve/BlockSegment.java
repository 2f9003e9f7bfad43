package org.coflow.courier.serve;

import java.nio.file.Path;

/**
 * Where a registered block's bytes are: a range of a local file, and how the receiver checks them.
 *
 * <p>{@link #checksumAlgorithm()} names what {@link #checksum()} is: {@code ADLER32} or {@code
 * CRC32} of the whole range (Spark's per-partition checksum files, or computed once when first
 * served), or {@code IFILE} for MapReduce segments, which carry their own CRC32 trailer in their
 * last 4 bytes (the receiver checks the trailer against the bytes before it).
 */
public final class BlockSegment {
  private final Path file;
  private final long offset;
  private final long length;
  private final String checksumAlgorithm;
  private final long checksum;
  private final long rawLength;

  BlockSegment(
      Path file,
      long offset,
      long length,
      String checksumAlgorithm,
      long checksum,
      long rawLength) {
    this.file = file;
    this.offset = offset;
    this.length = length;
    this.checksumAlgorithm = checksumAlgorithm;
    this.checksum = checksum;
    this.rawLength = rawLength;
  }

  public Path file() {
    return file;
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
