package org.coflow.stress.fuzz;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The fuzz's byte-level tools: random bytes, protobuf-looking garbage, mutations of a valid
 * sequence ({@link #havoc}), and cutting an input into separately written pieces.
 */
final class ByteMutations {
  private ByteMutations() {}

  static byte[] random(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  /** Bytes that mostly look like protobuf: tags of every wire type, varints, nested lengths. */
  static byte[] protobufGarbage(SplittableRandom r) {
    byte[] out = new byte[r.nextInt(200)];
    int i = 0;
    while (i < out.length) {
      int field = 1 + r.nextInt(20);
      int wire = r.nextInt(8);
      out[i++] = (byte) (field << 3 | wire);
      for (int n = r.nextInt(6); n > 0 && i < out.length; n--) {
        out[i++] = (byte) (r.nextInt(4) == 0 ? 0xff : r.nextInt(256));
      }
    }
    return out;
  }

  /**
   * Up to {@code ops} byte-level mutations: bits flipped, bytes and big-endian int32s set to the
   * decoder's bounds ({@link FuzzInputs#LENGTHS}), ranges deleted, duplicated or inserted, the tail
   * cut.
   */
  static byte[] havoc(SplittableRandom r, byte[] in, int ops) {
    byte[] b = in;
    for (int k = 0; k < ops; k++) {
      if (b.length == 0) {
        b = random(r, 1 + r.nextInt(16));
        continue;
      }
      int at = r.nextInt(b.length);
      switch (r.nextInt(8)) {
        case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
        case 1 -> b[at] = (byte) new int[] {0, 1, 0x7f, 0x80, 0xff, 4, 5}[r.nextInt(7)];
        case 2 -> {
          if (at + 4 <= b.length) {
            long v = FuzzInputs.LENGTHS[r.nextInt(FuzzInputs.LENGTHS.length)];
            for (int j = 0; j < 4; j++) {
              b[at + j] = (byte) (v >>> (24 - 8 * j));
            }
          }
        }
        case 3 -> {
          int n = Math.min(b.length - at, 1 + r.nextInt(16));
          byte[] c = new byte[b.length - n];
          System.arraycopy(b, 0, c, 0, at);
          System.arraycopy(b, at + n, c, at, b.length - at - n);
          b = c;
        }
        case 4 -> {
          int n = Math.min(b.length - at, 1 + r.nextInt(64));
          b = insert(b, r.nextInt(b.length + 1), Arrays.copyOfRange(b, at, at + n));
        }
        case 5 -> b = insert(b, at, random(r, 1 + r.nextInt(32)));
        case 6 -> b = Arrays.copyOf(b, at);
        default -> b[at] = (byte) FuzzInputs.TYPES_KNOWN[r.nextInt(FuzzInputs.TYPES_KNOWN.length)];
      }
      if (b.length > 64 << 10) {
        b = Arrays.copyOf(b, 64 << 10);
      }
    }
    return b;
  }

  private static byte[] insert(byte[] b, int at, byte[] what) {
    byte[] c = new byte[b.length + what.length];
    System.arraycopy(b, 0, c, 0, at);
    System.arraycopy(what, 0, c, at, what.length);
    System.arraycopy(b, at, c, at + what.length, b.length - at);
    return c;
  }

  /** One write most of the time; else 2 to 5 pieces cut at random. */
  static List<byte[]> split(SplittableRandom r, byte[] bytes) {
    if (bytes.length < 2 || r.nextInt(4) != 0) {
      return List.of(bytes);
    }
    int pieces = 2 + r.nextInt(4);
    int[] cuts = new int[pieces - 1];
    for (int i = 0; i < cuts.length; i++) {
      cuts[i] = 1 + r.nextInt(bytes.length - 1);
    }
    Arrays.sort(cuts);
    List<byte[]> out = new ArrayList<>();
    int from = 0;
    for (int c : cuts) {
      if (c > from) {
        out.add(Arrays.copyOfRange(bytes, from, c));
        from = c;
      }
    }
    out.add(Arrays.copyOfRange(bytes, from, bytes.length));
    return out;
  }
}
