package org.coflow.courier.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resolving registered Spark and MapReduce blocks from real files, and refusing everything else.
 */
class BlockRegistryTest {
  private final Random random = new Random(11);

  byte[][] writeSparkMapOutput(
      List<Path> dirs, int shuffle, int map, int[] sizes, boolean checksums) throws IOException {
    return ShuffleFiles.writeSparkMapOutput(random, dirs, shuffle, map, sizes, checksums);
  }

  static ErrorCode refusal(BlockRegistry reg, String set, String block) {
    return assertThrows(
            ProtocolException.class,
            () -> reg.resolve(BlockRef.newBuilder().setBlockSet(set).setBlock(block).build()))
        .code();
  }

  static final String OWNER = "client-1";

  static BlockRegistry registry(Path tmp) {
    try {
      return new BlockRegistry(List.of(tmp.toRealPath()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static String register(BlockRegistry reg, RegisterSpark req) {
    return reg.register(req, OWNER).id();
  }

  static String register(BlockRegistry reg, RegisterMapReduce req) {
    return reg.register(req, OWNER).id();
  }

  static ErrorCode refusal(Runnable r) {
    return assertThrows(ProtocolException.class, r::run).code();
  }

  @Test
  void sparkBlocksResolveToTheirPartitionsWithSparksChecksums(@TempDir Path tmp) throws Exception {
    List<Path> dirs =
        List.of(
            Files.createDirectories(tmp.resolve("blockmgr-a")).toRealPath(),
            Files.createDirectories(tmp.resolve("blockmgr-b")).toRealPath());
    byte[][] parts = writeSparkMapOutput(dirs, 0, 5, new int[] {100, 0, 5000}, true);
    writeSparkMapOutput(dirs, 0, 6, new int[] {10, 20}, false);
    BlockRegistry reg = registry(tmp);
    String set =
        register(
            reg,
            RegisterSpark.newBuilder()
                .setAppId("app-20261122-0001")
                .setExecId("3")
                .addLocalDirs(dirs.get(0).toString())
                .addLocalDirs(dirs.get(1).toString())
                .setSubDirsPerLocalDir(64)
                .setChecksumAlgorithm("ADLER32")
                .build());
    assertEquals("spark/app-20261122-0001/3", set);

    BlockSegment s =
        reg.resolve(BlockRef.newBuilder().setBlockSet(set).setBlock("shuffle_0_5_2").build());
    assertEquals(100, s.offset());
    assertEquals(5000, s.length());
    assertEquals("ADLER32", s.checksumAlgorithm());
    Adler32 a = new Adler32();
    a.update(parts[2]);
    assertEquals(a.getValue(), s.checksum());
    assertEquals(
        0,
        reg.resolve(BlockRef.newBuilder().setBlockSet(set).setBlock("shuffle_0_5_1").build())
            .length());

    // The set says Spark writes checksum files: a map output without one is refused, never
    // served unchecked.
    assertEquals(ErrorCode.ERROR_CODE_CORRUPT, refusal(reg, set, "shuffle_0_6_1"));

    assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, refusal(reg, set, "shuffle_0_5_3"));
    assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, refusal(reg, set, "shuffle_0_7_0"));
    assertEquals(ErrorCode.ERROR_CODE_INVALID, refusal(reg, set, "shuffle_0_5_../../x"));
    assertEquals(ErrorCode.ERROR_CODE_INVALID, refusal(reg, set, "../../../etc/passwd"));
    assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, refusal(reg, "spark/app-9/1", "shuffle_0_5_0"));

    // An index that points past its data file.
    ShuffleFiles.write(ShuffleFiles.sparkPath(dirs, 64, "shuffle_1_0_0.data"), new byte[10]);
    ShuffleFiles.write(
        ShuffleFiles.sparkPath(dirs, 64, "shuffle_1_0_0.index"),
        ByteBuffer.allocate(16).putLong(0).putLong(50).array());
    assertEquals(ErrorCode.ERROR_CODE_CORRUPT, refusal(reg, set, "shuffle_1_0_0"));

    // A link inside a registered directory to a file outside it.
    Path secret =
        Files.write(
            tmp.resolve("secret.index"), ByteBuffer.allocate(16).putLong(0).putLong(4).array());
    Path link = ShuffleFiles.sparkPath(dirs, 64, "shuffle_2_0_0.index");
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, secret);
    ShuffleFiles.write(ShuffleFiles.sparkPath(dirs, 64, "shuffle_2_0_0.data"), new byte[4]);
    assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, refusal(reg, set, "shuffle_2_0_0"));
  }

  @Test
  void registrationsWithUnsafeNamesOrDirectoriesAreRefused(@TempDir Path tmp) {
    BlockRegistry reg = registry(tmp);
    RegisterSpark.Builder ok =
        RegisterSpark.newBuilder()
            .setAppId("app-1")
            .setExecId("1")
            .addLocalDirs(tmp.toString())
            .setSubDirsPerLocalDir(64);
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(() -> register(reg, ok.clone().setAppId("../x").build())));
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(() -> register(reg, ok.clone().setExecId("a/b").build())));
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(
            () -> register(reg, ok.clone().clearLocalDirs().addLocalDirs("relative/dir").build())));
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(
            () ->
                register(
                    reg,
                    ok.clone()
                        .clearLocalDirs()
                        .addLocalDirs(tmp.resolve("missing").toString())
                        .build())));
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(() -> register(reg, ok.clone().setSubDirsPerLocalDir(0).build())));
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(() -> register(reg, ok.clone().setChecksumAlgorithm("MD5").build())));
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(
            () ->
                register(
                    reg,
                    RegisterMapReduce.newBuilder()
                        .setJobId("job_1_2; rm")
                        .setUser("u")
                        .addLocalDirs(tmp.toString())
                        .build())));
    assertEquals(
        ErrorCode.ERROR_CODE_INVALID,
        refusal(
            () ->
                register(
                    reg,
                    RegisterMapReduce.newBuilder()
                        .setJobId("job_1_2")
                        .setUser("..")
                        .addLocalDirs(tmp.toString())
                        .build())));
    assertEquals(0, reg.size());
  }

  @Test
  void mapReduceBlocksResolveToTheirIfileSegments(@TempDir Path tmp) throws Exception {
    Path nm1 = Files.createDirectories(tmp.resolve("nm-local-1")).toRealPath();
    Path nm2 = Files.createDirectories(tmp.resolve("nm-local-2")).toRealPath();
    String attempt = "attempt_1763780000000_0001_m_000003_0";
    Path out =
        nm2.resolve("usercache/alice/appcache/application_1763780000000_0001/output/" + attempt);
    Files.createDirectories(out);
    byte[] p0 = new byte[300];
    byte[] p1 = new byte[70];
    random.nextBytes(p0);
    random.nextBytes(p1);
    byte[] s0 = ShuffleFiles.ifileSegment(p0);
    byte[] s1 = ShuffleFiles.ifileSegment(p1);
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    file.write(s0);
    file.write(s1);
    // As after a map that spilled: the data in one local dir, its index in another.
    Path dataDir =
        Files.createDirectories(
            nm1.resolve(
                "usercache/alice/appcache/application_1763780000000_0001/output/" + attempt));
    Files.write(dataDir.resolve("file.out"), file.toByteArray());
    ByteBuffer index = ByteBuffer.allocate(2 * 24 + 8);
    index.putLong(0).putLong(900).putLong(s0.length);
    index.putLong(s0.length).putLong(200).putLong(s1.length);
    CRC32 ic = new CRC32();
    ic.update(index.array(), 0, 48);
    index.putLong(ic.getValue());
    Files.write(out.resolve("file.out.index"), index.array());

    BlockRegistry reg = registry(tmp);
    String set =
        register(
            reg,
            RegisterMapReduce.newBuilder()
                .setJobId("job_1763780000000_0001")
                .setUser("alice")
                .addLocalDirs(nm1.toString())
                .addLocalDirs(nm2.toString())
                .build());
    BlockSegment s =
        reg.resolve(BlockRef.newBuilder().setBlockSet(set).setBlock(attempt + "/1").build());
    assertEquals(s0.length, s.offset());
    assertEquals(s1.length, s.length());
    assertEquals(200, s.rawLength());
    assertEquals(Checksums.IFILE, s.checksumAlgorithm());
    CRC32 c = new CRC32();
    c.update(p1);
    assertEquals(c.getValue(), s.checksum(), "the segment's own trailer");

    assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, refusal(reg, set, attempt + "/2"));
    assertEquals(
        ErrorCode.ERROR_CODE_NOT_FOUND,
        refusal(reg, set, "attempt_1763780000000_0001_m_000009_0/0"));
    assertEquals(ErrorCode.ERROR_CODE_INVALID, refusal(reg, set, attempt + "/../../x"));
    index.putLong(48, ic.getValue() + 1);
    Files.write(out.resolve("file.out.index"), index.array());
    assertEquals(ErrorCode.ERROR_CODE_CORRUPT, refusal(reg, set, attempt + "/0"));
    assertTrue(reg.size() == 1);
  }

  private static RegisterSpark executor(String app, int exec, Path dir) {
    return RegisterSpark.newBuilder()
        .setAppId(app)
        .setExecId(Integer.toString(exec))
        .addLocalDirs(dir.toString())
        .setSubDirsPerLocalDir(64)
        .build();
  }

  @Test
  void noIdentityFillsTheRegistryForTheOthers(@TempDir Path tmp) throws Exception {
    // The agent's bounds scaled down (65,536 sets, 4,096 per identity, a quarter per address of
    // anonymous clients) to 64, 8 and 16.
    BlockRegistry reg = new BlockRegistry(List.of(tmp.toRealPath()), 64, 8, 16);
    Path dir = java.nio.file.Files.createDirectories(tmp.resolve("squat"));
    String stranger = BlockRegistry.ANONYMOUS + "1@/127.0.0.1:40000";
    for (int i = 0; i < 8; i++) {
      reg.register(executor("app-squat", i, dir), stranger);
    }
    ProtocolException full =
        assertThrows(
            ProtocolException.class, () -> reg.register(executor("app-squat", 8, dir), stranger));
    assertEquals(ErrorCode.ERROR_CODE_BUSY, full.code());
    assertTrue(full.getMessage().contains("the most one identity may hold"), full.getMessage());
    // Reconnecting gives a stranger more only up to its address's share.
    Path again = java.nio.file.Files.createDirectories(tmp.resolve("squat-2"));
    String second = BlockRegistry.ANONYMOUS + "2@/127.0.0.1:40001";
    for (int i = 0; i < 8; i++) {
      reg.register(executor("app-squat2", i, again), second);
    }
    Path third = java.nio.file.Files.createDirectories(tmp.resolve("squat-3"));
    ProtocolException address =
        assertThrows(
            ProtocolException.class,
            () ->
                reg.register(
                    executor("app-squat3", 0, third), BlockRegistry.ANONYMOUS + "3@/127.0.0.1:4"));
    assertEquals(ErrorCode.ERROR_CODE_BUSY, address.code());
    assertTrue(address.getMessage().contains("from /127.0.0.1"), address.getMessage());
    // Another identity is not affected.
    Path mine = java.nio.file.Files.createDirectories(tmp.resolve("mine"));
    reg.register(executor("app-1", 0, mine), "cluster");
    assertEquals(17, reg.size());
  }

  @Test
  void setsWhoseDirectoriesAreGoneMakeRoomAtTheQuota(@TempDir Path tmp) throws Exception {
    BlockRegistry reg = new BlockRegistry(List.of(tmp.toRealPath()), 64, 8, 16);
    for (int i = 0; i < 8; i++) {
      Path d = java.nio.file.Files.createDirectories(tmp.resolve("exec-" + i));
      reg.register(executor("app-old", i, d), "cluster");
      java.nio.file.Files.delete(d); // the executor exited and Spark deleted its directory
    }
    Path d = java.nio.file.Files.createDirectories(tmp.resolve("exec-new"));
    reg.register(executor("app-new", 0, d), "cluster");
    assertEquals(1, reg.size(), "the vanished sets were released");
  }

  @Test
  void onlyTheOwnerUnregistersASet(@TempDir Path tmp) throws Exception {
    BlockRegistry reg = registry(tmp);
    Path d = java.nio.file.Files.createDirectories(tmp.resolve("exec"));
    String set = reg.register(executor("app-1", 0, d), "spark:app-1").id();
    ProtocolException other =
        assertThrows(ProtocolException.class, () -> reg.unregister(set, "spark:app-2"));
    assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, other.code());
    assertEquals(1, reg.size());
    reg.unregister(set, "spark:app-1");
    reg.unregister(set, "spark:app-1"); // already gone: no error
    assertEquals(0, reg.size());
  }
}
