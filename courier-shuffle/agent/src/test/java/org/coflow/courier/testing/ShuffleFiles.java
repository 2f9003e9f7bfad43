package org.coflow.courier.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

/** Shuffle files laid out as Spark and MapReduce write them, for serving tests. */
public final class ShuffleFiles {
  private ShuffleFiles() {}

  /** Where Spark's DiskBlockManager puts {@code name} (ExecutorDiskUtils.getFilePath). */
  public static Path sparkPath(List<Path> dirs, int subDirs, String name) {
    int h = name.hashCode();
    h = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
    return dirs.get(h % dirs.size())
        .resolve(String.format("%02x", (h / dirs.size()) % subDirs))
        .resolve(name);
  }

  /**
   * Writes a Spark map output (64 sub-directories) with random partitions of the given sizes and,
   * if asked, its ADLER32 checksum file.
   *
   * @return the partitions' bytes
   */
  public static byte[][] writeSparkMapOutput(
      Random random, List<Path> dirs, int shuffle, int map, int[] sizes, boolean checksums)
      throws IOException {
    String base = "shuffle_" + shuffle + "_" + map + "_0";
    byte[][] parts = new byte[sizes.length][];
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    ByteBuffer index = ByteBuffer.allocate(8 * (sizes.length + 1));
    ByteBuffer sums = ByteBuffer.allocate(8 * sizes.length);
    long offset = 0;
    index.putLong(0);
    for (int r = 0; r < sizes.length; r++) {
      parts[r] = new byte[sizes[r]];
      random.nextBytes(parts[r]);
      data.write(parts[r]);
      offset += sizes[r];
      index.putLong(offset);
      Adler32 a = new Adler32();
      a.update(parts[r]);
      sums.putLong(a.getValue());
    }
    write(sparkPath(dirs, 64, base + ".data"), data.toByteArray());
    write(sparkPath(dirs, 64, base + ".index"), index.array());
    if (checksums) {
      write(sparkPath(dirs, 64, base + ".checksum.ADLER32"), sums.array());
    }
    return parts;
  }

  public static void write(Path p, byte[] bytes) throws IOException {
    Files.createDirectories(p.getParent());
    Files.write(p, bytes);
  }

  /** An IFile-like segment: the payload, then the CRC32 of the payload as 4 bytes. */
  public static byte[] ifileSegment(byte[] payload) throws IOException {
    CRC32 crc = new CRC32();
    crc.update(payload);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(payload);
    new DataOutputStream(out).writeInt((int) crc.getValue());
    return out.toByteArray();
  }

  /**
   * Registers {@code dir} with {@code registry} as Spark executor {@code exec}'s local dir in
   * application {@code app}, with ADLER32 checksum files; returns the block set's id.
   */
  public static String registerSpark(
      org.coflow.courier.serve.BlockRegistry registry, String app, String exec, Path dir) {
    return registry
        .register(
            org.coflow.api.proto.courier.v1.RegisterSpark.newBuilder()
                .setAppId(app)
                .setExecId(exec)
                .addLocalDirs(dir.toString())
                .setSubDirsPerLocalDir(64)
                .setChecksumAlgorithm("ADLER32")
                .build(),
            "test")
        .id();
  }
}
