package org.coflow.courier.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Strangers (anyone who can open a TCP connection to an agent) try to register, write and delete
 * files through it. Each test is the attack; it succeeded on the agent before authentication and
 * ownership (docs/security.md).
 */
@ExtendWith(LeakCheck.class)
class StrangerTest {
  @TempDir Path tmp;
  private final NioEventLoopGroup group = new NioEventLoopGroup(2);

  @AfterEach
  void stop() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static ErrorCode code(Throwable t) {
    Throwable c = t instanceof ExecutionException ? t.getCause() : t;
    assertTrue(c instanceof ProtocolException, "a protocol error, got " + c);
    return ((ProtocolException) c).code();
  }

  @Test
  void aStrangerCannotRegisterTheFileSystemRootWithAnExecutorsAgent() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("blockmgr-1")).toRealPath();
    try (CourierAgent agent = Attack.executorLike("exec-1", dir);
        CourierClient stranger = Attack.stranger(group, agent)) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  stranger
                      .register(Attack.spark("app-evil", "9", Path.of("/"), true))
                      .get(10, TimeUnit.SECONDS));
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, code(e));
      assertEquals(0, agent.registry().size());
    }
  }

  @Test
  void withASecretAStrangerIsRefusedBeforeItCanDoAnything() throws Exception {
    Path root = tmp.toRealPath();
    Path secret = Attack.secretFile(tmp, "cluster.secret");
    Path other = Attack.secretFile(tmp, "other.secret");
    Path dir = Files.createDirectories(root.resolve("exec")).toRealPath();
    try (CourierAgent agent = Attack.standalone("h1", root, secret)) {
      ProtocolException none =
          assertThrows(ProtocolException.class, () -> Attack.stranger(group, agent));
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, none.code());
      ProtocolException wrong =
          assertThrows(ProtocolException.class, () -> Attack.member(group, agent, other));
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, wrong.code());
      try (CourierClient member = Attack.member(group, agent, secret)) {
        assertEquals(
            "spark/app-1/1",
            member.register(Attack.spark("app-1", "1", dir, true)).get(10, TimeUnit.SECONDS));
      }
    }
    // A secret others can read proves nothing: the agent does not start with it.
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Attack.standalone("h1", root, secret));
    assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
  }

  @Test
  void aStrangerCannotOverwriteASecuredJobsMapOutput() throws Exception {
    Path root = tmp.toRealPath();
    Path nm = Files.createDirectories(root.resolve("nm-local"));
    Path out =
        Files.createDirectories(
            nm.resolve(
                "usercache/alice/appcache/application_1_0001/output/attempt_1_0001_m_000000_0"));
    byte[] mapOutput = ShuffleFiles.ifileSegment("the job's own bytes".getBytes());
    Files.write(out.resolve("file.out"), mapOutput);
    Path evilDir = Files.createDirectories(root.resolve("evil"));
    ShuffleFiles.writeSparkMapOutput(new Random(1), List.of(evilDir), 0, 0, new int[] {64}, true);
    try (CourierAgent victim = Attack.standalone("nm-1", root, null);
        CourierAgent evil = Attack.standalone("evil", root, null);
        CourierClient evilRegistrar = Attack.stranger(group, evil);
        CourierClient stranger = Attack.stranger(group, victim)) {
      victim
          .registry()
          .registerSecured(
              RegisterMapReduce.newBuilder()
                  .setJobId("job_1_0001")
                  .setUser("alice")
                  .addLocalDirs(nm.toString())
                  .setShuffleSecret(com.google.protobuf.ByteString.copyFromUtf8("job secret bytes"))
                  .setShufflePort(13562)
                  .build());
      String evilSet =
          evilRegistrar
              .register(Attack.spark("app-evil", "0", evilDir, true))
              .get(10, TimeUnit.SECONDS);
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  Attack.fetch(
                          stranger,
                          Attack.block(
                              evil, evilSet, "shuffle_0_0_0", out.resolve("file.out").toString()),
                          new ByteArrayOutputStream())
                      .get(10, TimeUnit.SECONDS));
      assertEquals(ErrorCode.ERROR_CODE_INVALID, code(e));
      assertArrayEquals(mapOutput, Files.readAllBytes(out.resolve("file.out")));
    }
  }

  @Test
  void aTargetFileIsNeverALinkNorAnExistingFileAndAFailureDeletesNothingElse() throws Exception {
    Path root = tmp.toRealPath();
    Path mine = Files.createDirectories(root.resolve("mine"));
    Path outside = Files.createDirectories(tmp.resolve("outside-" + System.nanoTime()));
    Path precious = Files.write(outside.resolve("precious"), "precious".getBytes());
    Files.createSymbolicLink(mine.resolve("link"), precious);
    Path neighbour =
        Files.write(mine.resolve("shuffle_3_0_0.data"), "a neighbour's data".getBytes());
    Path served = Files.createDirectories(root.resolve("served"));
    ShuffleFiles.writeSparkMapOutput(new Random(2), List.of(served), 0, 0, new int[] {100}, true);
    try (CourierAgent source = Attack.standalone("src", root, null);
        CourierAgent agent = Attack.standalone("dst", root, null);
        CourierClient registrar = Attack.stranger(group, source);
        CourierClient client = Attack.stranger(group, agent)) {
      String set =
          registrar.register(Attack.spark("app-1", "0", served, true)).get(10, TimeUnit.SECONDS);
      client.register(Attack.spark("app-2", "5", mine, true)).get(10, TimeUnit.SECONDS);
      // Through a link: refused, the link's target untouched.
      ExecutionException viaLink =
          assertThrows(
              ExecutionException.class,
              () ->
                  Attack.fetch(
                          client,
                          Attack.block(
                              source, set, "shuffle_0_0_0", mine.resolve("link").toString()),
                          new ByteArrayOutputStream())
                      .get(10, TimeUnit.SECONDS));
      assertEquals(ErrorCode.ERROR_CODE_INVALID, code(viaLink));
      assertEquals("precious", Files.readString(precious));
      // Onto an existing file, with a fetch that fails: neither truncated nor deleted.
      assertThrows(
          ExecutionException.class,
          () ->
              Attack.fetch(
                      client,
                      Attack.block(source, set, "shuffle_0_9_0", neighbour.toString()),
                      new ByteArrayOutputStream())
                  .get(10, TimeUnit.SECONDS));
      assertEquals("a neighbour's data", Files.readString(neighbour));
      // A new file in its own set: written; a failed one leaves nothing behind.
      Path fresh = mine.resolve("fetched-1");
      assertEquals(
          100,
          Attack.fetch(
                  client,
                  Attack.block(source, set, "shuffle_0_0_0", fresh.toString()),
                  new ByteArrayOutputStream())
              .get(10, TimeUnit.SECONDS));
      assertEquals(100, Files.size(fresh));
      Path failed = mine.resolve("fetched-2");
      assertThrows(
          ExecutionException.class,
          () ->
              Attack.fetch(
                      client,
                      Attack.block(source, set, "shuffle_0_9_0", failed.toString()),
                      new ByteArrayOutputStream())
                  .get(10, TimeUnit.SECONDS));
      assertTrue(!Files.exists(failed));
    }
  }

  static AgentOptions options(String host) {
    return AgentOptions.forHost(host);
  }
}
