package org.coflow.stress.wire;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.Adler32;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;

/**
 * One Spark map output as an executor writes it (one local directory, one sub-directory, an ADLER32
 * checksum file), for benchmarks that fetch it through an agent: it keeps the partitions' bytes, so
 * that every streamed block can be compared byte for byte as it arrives ({@link Check}).
 */
public final class MapOutput {
  private final Path dir;
  private final byte[][] parts;

  private MapOutput(Path dir, byte[][] parts) {
    this.dir = dir;
    this.parts = parts;
  }

  /** Writes {@code partitions} random partitions of {@code size} bytes each under {@code dir}. */
  public static MapOutput write(Path dir, int partitions, int size, long seed) throws IOException {
    Path sub = Files.createDirectories(dir.resolve("00"));
    SplittableRandom random = new SplittableRandom(seed);
    byte[][] parts = new byte[partitions][size];
    ByteBuffer data = ByteBuffer.allocate(partitions * size);
    ByteBuffer index = ByteBuffer.allocate(8 * (partitions + 1)).putLong(0);
    ByteBuffer sums = ByteBuffer.allocate(8 * partitions);
    for (int p = 0; p < partitions; p++) {
      random.nextBytes(parts[p]);
      data.put(parts[p]);
      index.putLong((long) (p + 1) * size);
      Adler32 a = new Adler32();
      a.update(parts[p]);
      sums.putLong(a.getValue());
    }
    Files.write(sub.resolve("shuffle_0_0_0.data"), data.array());
    Files.write(sub.resolve("shuffle_0_0_0.index"), index.array());
    Files.write(sub.resolve("shuffle_0_0_0.checksum.ADLER32"), sums.array());
    return new MapOutput(dir.toRealPath(), parts);
  }

  /** The registration of this output as executor {@code execId} of application {@code appId}. */
  public RegisterSpark registration(String appId, String execId) {
    return RegisterSpark.newBuilder()
        .setAppId(appId)
        .setExecId(execId)
        .addLocalDirs(dir.toString())
        .setSubDirsPerLocalDir(1)
        .setChecksumAlgorithm("ADLER32")
        .build();
  }

  public int partitions() {
    return parts.length;
  }

  public int size(int partition) {
    return parts[partition].length;
  }

  /**
   * Partition {@code p} of set {@code blockSet}, served by host {@code hostId}'s agent at {@code
   * agent}.
   */
  public RemoteBlock block(int p, String blockSet, String hostId, InetSocketAddress agent) {
    return RemoteBlock.newBuilder()
        .setHostId(hostId)
        .setAgentAddress(agent.getHostString() + ":" + agent.getPort())
        .setSize(parts[p].length)
        .setBlock(BlockRef.newBuilder().setBlockSet(blockSet).setBlock("shuffle_0_0_" + p))
        .build();
  }

  /** A check of one streamed partition, fed its pieces in order (on the connection's thread). */
  public Check check(int p) {
    return new Check(parts[p]);
  }

  /** Compares a streamed block with what was written, piece by piece. */
  public static final class Check {
    private final byte[] expected;
    private int offset;
    private boolean mismatch;

    private Check(byte[] expected) {
      this.expected = expected;
    }

    /** The next piece of the block (not retained). */
    public void accept(ByteBuf piece) {
      int n = piece.readableBytes();
      if (mismatch || offset + n > expected.length) {
        mismatch = true;
        return;
      }
      int at = piece.readerIndex();
      for (int i = 0; i < n; i++) {
        if (piece.getByte(at + i) != expected[offset + i]) {
          mismatch = true;
          return;
        }
      }
      offset += n;
    }

    /** Whether exactly the written bytes arrived and {@code length} is their count. */
    public boolean matches(long length) {
      return !mismatch && offset == expected.length && length == expected.length;
    }
  }
}
