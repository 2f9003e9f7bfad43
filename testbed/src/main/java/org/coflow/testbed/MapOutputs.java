package org.coflow.testbed;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

/**
 * The map-side files of a testbed workload, in Spark's sort-shuffle layout so that a Courier agent
 * serves them as it serves an executor's ({@code <dir>/00/shuffle_<coflow>_<host>_0.data}, its
 * {@code .index} and its ADLER32 {@code .checksum}): one map output per coflow and mapper host,
 * with one partition per reducer of the coflow. The baseline's server reads the same files.
 */
public final class MapOutputs {
  private MapOutputs() {}

  /** The directory of a host's map outputs (what its agent registers). */
  public static Path hostDir(Path root, int host) {
    return root.resolve("h" + host);
  }

  /** Every host a mapper and a reducer of {@link #WARMUP_BLOCK} bytes from each. */
  static Workload.Coflow warmup(int hosts) {
    int[] all = new int[hosts];
    int[] one = new int[hosts];
    java.util.List<Workload.Reducer> reducers = new java.util.ArrayList<>();
    for (int h = 0; h < hosts; h++) {
      all[h] = h;
      one[h] = 1;
      reducers.add(new Workload.Reducer(h, WARMUP_BLOCK * hosts));
    }
    return new Workload.Coflow(-1, 0, all, one, reducers);
  }

  /** The data file of coflow {@code coflow}'s map output on {@code host}. */
  public static Path dataFile(Path hostDir, int coflow, int host) {
    return hostDir.resolve("00").resolve("shuffle_" + coflow + "_" + host + "_0.data");
  }

  /** Spark's name of a partition of that map output (what a reducer asks an agent for). */
  public static String blockName(int coflow, int host, int reducer) {
    return "shuffle_" + coflow + "_" + host + "_" + reducer;
  }

  /** Bytes of each warm-up block (see {@link #warmupCoflow}). */
  public static final long WARMUP_BLOCK = 256 << 10;

  /**
   * The warm-up coflow's number: one past the workload's. Before a run's clock starts, every host
   * fetches a block of it from every other host, so that each host JVM has loaded and compiled its
   * fetch path (and a Courier agent has its connections, as a long-running agent would) before
   * anything is timed, whatever the setup.
   */
  public static int warmupCoflow(Workload w) {
    return w.coflows().size();
  }

  /**
   * Writes every map output of {@code w} under {@code root} (pseudo-random bytes, seeded per file)
   * and the warm-up coflow's, and returns, per coflow and reducer, the sum of its blocks' CRC32s:
   * what a reducer that received every byte intact reports.
   */
  public static long[][] write(Workload w, Path root) throws IOException {
    long[][] expected = new long[w.coflows().size() + 1][];
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    for (int c = 0; c <= w.coflows().size(); c++) {
      Workload.Coflow cf = c < w.coflows().size() ? w.coflows().get(c) : warmup(w.hosts());
      expected[c] = new long[cf.reducers().size()];
      for (int h : cf.mapperHosts()) {
        Path sub = Files.createDirectories(hostDir(root, h).resolve("00"));
        int parts = cf.reducers().size();
        long[] bounds = new long[parts + 1];
        long[] adler = new long[parts];
        SplittableRandom random = new SplittableRandom(31L * c + h);
        try (FileChannel out =
            FileChannel.open(
                dataFile(hostDir(root, h), c, h),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
          for (int r = 0; r < parts; r++) {
            long size = cf.blockBytes(h, r);
            bounds[r + 1] = bounds[r] + size;
            Adler32 a = new Adler32();
            CRC32 crc = new CRC32();
            for (long left = size; left > 0; ) {
              buf.clear();
              while (buf.remaining() >= 8) {
                buf.putLong(random.nextLong());
              }
              buf.flip().limit((int) Math.min(buf.limit(), left));
              a.update(buf.duplicate());
              crc.update(buf.duplicate());
              left -= buf.remaining();
              while (buf.hasRemaining()) {
                out.write(buf);
              }
            }
            adler[r] = a.getValue();
            if (size > 0) {
              expected[c][r] += crc.getValue();
            }
          }
        }
        ByteBuffer index = ByteBuffer.allocate(8 * (parts + 1));
        for (long v : bounds) {
          index.putLong(v);
        }
        Files.write(sub.resolve("shuffle_" + c + "_" + h + "_0.index"), index.array());
        ByteBuffer checks = ByteBuffer.allocate(8 * parts);
        for (long v : adler) {
          checks.putLong(v);
        }
        Files.write(sub.resolve("shuffle_" + c + "_" + h + "_0.checksum.ADLER32"), checks.array());
      }
    }
    return expected;
  }
}
