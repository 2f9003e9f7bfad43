package org.coflow.courier.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/** The checksum algorithms blocks are verified with, by the names Spark uses for them. */
public final class Checksums {
  public static final String ADLER32 = "ADLER32";
  public static final String CRC32 = "CRC32";
  public static final String CRC32C = "CRC32C";

  /** No checksum: the block set has none from its engine (unverified, see RegisterSpark). */
  public static final String NONE = "NONE";

  /** MapReduce IFile segments: a CRC32 of the segment in its last 4 bytes. */
  public static final String IFILE = "IFILE";

  /** What an unverified block is "checked" with: nothing, always 0. */
  private static final Checksum NOTHING =
      new Checksum() {
        @Override
        public void update(int b) {}

        @Override
        public void update(byte[] b, int off, int len) {}

        @Override
        public long getValue() {
          return 0;
        }

        @Override
        public void reset() {}
      };

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
      case NONE:
        return NOTHING;
      default:
        throw new IllegalArgumentException(
            "unknown checksum algorithm '"
                + algorithm
                + "'; known: ADLER32, CRC32, CRC32C, IFILE, NONE");
    }
  }

  static boolean known(String algorithm) {
    return algorithm.equals(ADLER32) || algorithm.equals(CRC32) || algorithm.equals(CRC32C);
  }

  /** Reads {@code n} consecutive big-endian longs from {@code position} of {@code file}. */
  static long[] readLongs(FileChannel ch, long position, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8 * n);
    while (b.hasRemaining()) {
      if (ch.read(b, position + b.position()) < 0) {
        throw new IOException("unexpected end of file at " + (position + b.position()));
      }
    }
    long[] out = new long[n];
    b.flip();
    b.asLongBuffer().get(out);
    return out;
  }
}
