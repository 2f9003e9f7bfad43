package org.coflow.courier.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/** The checksum algorithms blocks are verified with, by the names Spark uses for them. */
public final class Checksums {
  public static final String ADLER32 = "ADLER32";
  public static final String CRC32 = "CRC32";
  public static final String CRC32C = "CRC32C";

  /** MapReduce IFile segments: a CRC32 of the segment in its last 4 bytes. */
  public static final String IFILE = "IFILE";

  private Checksums() {}

  /** A fresh checksum of {@code algorithm} (ADLER32, CRC32, CRC32C; IFILE checks with CRC32). */
  public static Checksum create(String algorithm) {
    switch (algorithm) {
      case ADLER32:
        return new Adler32();
      case CRC32:
      case IFILE:
        return new CRC32();
      case CRC32C:
        return new CRC32C();
      default:
        throw new IllegalArgumentException(
            "unknown checksum algorithm '" + algorithm + "'; known: ADLER32, CRC32, CRC32C, IFILE");
    }
  }

  static boolean known(String algorithm) {
    return algorithm.equals(ADLER32) || algorithm.equals(CRC32) || algorithm.equals(CRC32C);
  }

  /** The {@code algorithm} checksum of {@code length} bytes of {@code file} from {@code offset}. */
  static long of(Path file, long offset, long length, String algorithm) throws IOException {
    Checksum sum = create(algorithm);
    ByteBuffer buf = ByteBuffer.allocate(1 << 16);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long pos = offset;
      long end = offset + length;
      while (pos < end) {
        buf.clear().limit((int) Math.min(buf.capacity(), end - pos));
        int n = ch.read(buf, pos);
        if (n < 0) {
          throw new IOException(file + " ended at " + pos + " before " + end);
        }
        sum.update(buf.array(), 0, n);
        pos += n;
      }
    }
    return sum.getValue();
  }

  /** Reads a big-endian long at {@code position} of {@code file}. */
  static long readLong(FileChannel ch, long position) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8);
    while (b.hasRemaining()) {
      if (ch.read(b, position + b.position()) < 0) {
        throw new IOException("unexpected end of file at " + position);
      }
    }
    return b.getLong(0);
  }
}
