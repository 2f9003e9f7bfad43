package org.coflow.courier.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.coflow.courier.CourierConfig;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;

/**
 * Strangers (anyone who can open a TCP connection to an agent) try to register, write and delete
 * files through it. Each test is the attack; it succeeded on the agent before authentication and
 * ownership (docs/security.md).
 */
class StrangerTest extends AttackBase {
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
    // A map output changed after Spark wrote its checksums: it fails at its end, as corrupt.
    ShuffleFiles.writeSparkMapOutput(new Random(3), List.of(served), 1, 0, new int[] {100}, true);
    Path corrupt = ShuffleFiles.sparkPath(List.of(served), 64, "shuffle_1_0_0.data");
    byte[] bytes = Files.readAllBytes(corrupt);
    bytes[7] ^= 1;
    Files.write(corrupt, bytes);
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
      // Onto an existing file, with a block that fails after it started (corrupt): neither
      // truncated nor deleted.
      assertThrows(
          ExecutionException.class,
          () ->
              Attack.fetch(
                      client,
                      Attack.block(source, set, "shuffle_1_0_0", neighbour.toString()),
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

  @Test
  void aTargetSwappedForALinkBeforeItsBlockArrivesIsNotFollowed() throws Exception {
    Path root = tmp.toRealPath();
    Path mine = Files.createDirectories(root.resolve("mine"));
    Path precious = Files.write(root.resolve("precious"), "precious".getBytes());
    Path big = Files.createDirectories(root.resolve("big"));
    Path small = Files.createDirectories(root.resolve("small"));
    ShuffleFiles.writeSparkMapOutput(new Random(4), List.of(big), 0, 0, new int[] {3 << 20}, true);
    ShuffleFiles.writeSparkMapOutput(new Random(5), List.of(small), 0, 0, new int[] {100}, true);
    // One data connection (MaxNum 1) busy with a slow block from A: the block from B waits, its
    // target already checked.
    try (CourierAgent a =
            Attack.standalone(
                "a", root, null, AgentOptions.forHost("a").set(CourierConfig.LINK_RATE, 2e6));
        CourierAgent b = Attack.standalone("b", root, null);
        CourierAgent agent =
            Attack.standalone(
                "dst", root, null, AgentOptions.forHost("dst").set(CourierConfig.MAX_NUM, 1));
        CourierClient ra = Attack.stranger(group, a);
        CourierClient rb = Attack.stranger(group, b);
        CourierClient client = Attack.stranger(group, agent)) {
      String setA = ra.register(Attack.spark("app-1", "a", big, true)).get(10, TimeUnit.SECONDS);
      String setB = rb.register(Attack.spark("app-1", "b", small, true)).get(10, TimeUnit.SECONDS);
      client.register(Attack.spark("app-2", "5", mine, true)).get(10, TimeUnit.SECONDS);
      java.util.concurrent.CompletableFuture<Long> slow =
          Attack.fetch(
              client,
              Attack.block(a, setA, "shuffle_0_0_0", null).toBuilder().setSize(3 << 20).build(),
              new ByteArrayOutputStream());
      Thread.sleep(200);
      Path target = mine.resolve("fetched");
      java.util.concurrent.CompletableFuture<Long> waiting =
          Attack.fetch(
              client,
              Attack.block(b, setB, "shuffle_0_0_0", target.toString()),
              new ByteArrayOutputStream());
      Thread.sleep(300);
      assertTrue(!waiting.isDone(), "the second block waits for the only connection");
      // Swap the target for a link to a file outside the client's set before its block comes.
      Path link = mine.resolve("swap");
      Files.createSymbolicLink(link, precious);
      Files.move(link, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      slow.get(30, TimeUnit.SECONDS);
      try {
        waiting.get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        // refusing the block is fine too; following the link is not
      }
      assertEquals("precious", Files.readString(precious), "the link's target is untouched");
    }
  }

  @Test
  void aJobsTokenProvesOnlyALocalClientNeverAnAgent() throws Exception {
    org.coflow.courier.auth.Secret job =
        org.coflow.courier.auth.Secret.of("a job's shuffle secret".getBytes(), "job secret");
    org.coflow.courier.auth.KeyRing keys =
        org.coflow.courier.auth.KeyRing.open().addClient("mr:job_1_0001", job);
    try (CourierAgent agent =
            CourierAgent.start(
                AgentOptions.forHost("nm-1")
                    .bind(new java.net.InetSocketAddress("127.0.0.1", 0))
                    .roots(List.of(tmp.toRealPath()))
                    .keys(keys));
        Attack.RawPeer peer =
            Attack.RawPeer.connect(
                group,
                agent,
                "nm-evil",
                org.coflow.courier.auth.Credentials.of("mr:job_1_0001", job))) {
      org.coflow.courier.protocol.Frame f = peer.next();
      assertEquals(org.coflow.courier.protocol.FrameType.ERROR, f.type(), f.toString());
      org.coflow.api.proto.courier.v1.Error e = f.header();
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, e.getCode(), e.getMessage());
    }
  }

  @Test
  void aSetCannotTakeTheDirectoriesOfAnotherOwnersSet() throws Exception {
    Path root = tmp.toRealPath();
    Path dir = Files.createDirectories(root.resolve("exec-1"));
    Path sub = Files.createDirectories(dir.resolve("0c"));
    try (CourierAgent agent = Attack.standalone("h1", root, null);
        CourierClient first = Attack.stranger(group, agent);
        CourierClient second = Attack.stranger(group, agent)) {
      first.register(Attack.spark("app-1", "1", dir, true)).get(10, TimeUnit.SECONDS);
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  second.register(Attack.spark("app-2", "7", sub, true)).get(10, TimeUnit.SECONDS));
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, code(e));
    }
  }

  @Test
  void aMemberUnregistersOverTheWireAndNoOneElseCan() throws Exception {
    Path root = tmp.toRealPath();
    Path dir = Files.createDirectories(root.resolve("exec"));
    Path secret = Attack.secretFile(tmp, "cluster.secret");
    try (CourierAgent agent = Attack.standalone("h2", root, secret);
        CourierClient member = Attack.member(group, agent, secret)) {
      String set = member.register(Attack.spark("app-1", "1", dir, true)).get(10, TimeUnit.SECONDS);
      assertEquals(set, member.unregister(set).get(10, TimeUnit.SECONDS));
      assertEquals(0, agent.registry().size());
    }
    // On an agent without a secret, one client cannot remove what another registered.
    try (CourierAgent open = Attack.standalone("h3", root, null);
        CourierClient owner = Attack.stranger(group, open);
        CourierClient other = Attack.stranger(group, open)) {
      String set = owner.register(Attack.spark("app-1", "1", dir, true)).get(10, TimeUnit.SECONDS);
      ExecutionException e =
          assertThrows(
              ExecutionException.class, () -> other.unregister(set).get(10, TimeUnit.SECONDS));
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, code(e));
      assertEquals(1, open.registry().size());
    }
  }
}
