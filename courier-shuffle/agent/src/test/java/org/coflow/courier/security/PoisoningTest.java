package org.coflow.courier.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.client.LocalAgent;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;

/**
 * A host agent is shared by every application on its machine. A stranger among its clients names a
 * host at an address the stranger controls; what the agent's other clients are served when they
 * fetch that host at its true address must not change.
 */
class PoisoningTest extends AttackBase {
  @Test
  void aStrangersClaimAboutWhereAHostIsNeverReachesAnotherClient() throws Exception {
    Path root = tmp.toRealPath();
    Path good = Files.createDirectories(root.resolve("good"));
    Path fake = Files.createDirectories(root.resolve("fake"));
    byte[] truth =
        ShuffleFiles.writeSparkMapOutput(
            new Random(1), List.of(good), 0, 0, new int[] {4000}, true)[0];
    byte[] lie =
        ShuffleFiles.writeSparkMapOutput(
            new Random(2), List.of(fake), 0, 0, new int[] {4000}, true)[0];
    // The true agent of host hb, and the stranger's own agent also calling itself hb; both
    // anonymous, as agents started without a secret are.
    try (CourierAgent hb = Attack.standalone("hb", root, null);
        CourierAgent impostor = Attack.standalone("hb", root, null);
        CourierAgent shared = Attack.standalone("hv", root, null, AgentOptions.forHost("hv"));
        CourierClient hbRegistrar = Attack.stranger(group, hb);
        CourierClient impostorRegistrar = Attack.stranger(group, impostor);
        CourierClient stranger = Attack.stranger(group, shared);
        CourierClient victim = Attack.stranger(group, shared)) {
      String set =
          hbRegistrar.register(Attack.spark("app-1", "0", good, true)).get(10, TimeUnit.SECONDS);
      impostorRegistrar.register(Attack.spark("app-1", "0", fake, true)).get(10, TimeUnit.SECONDS);
      // The stranger fetches "hb" at its impostor's address through the shared agent, which now
      // holds a live connection to the impostor for host hb.
      ByteArrayOutputStream strangerGot = new ByteArrayOutputStream();
      Attack.fetch(stranger, Attack.block(impostor, set, "shuffle_0_0_0", null), strangerGot)
          .get(10, TimeUnit.SECONDS);
      assertArrayEquals(lie, strangerGot.toByteArray(), "the stranger gets what it asked for");
      // The victim fetches hb at hb's true address: it must get hb's bytes, not the impostor's.
      RemoteBlock atTrueAddress = Attack.block(hb, set, "shuffle_0_0_0", null);
      ByteArrayOutputStream victimGot = new ByteArrayOutputStream();
      Attack.fetch(victim, atTrueAddress, victimGot).get(10, TimeUnit.SECONDS);
      assertArrayEquals(
          truth,
          victimGot.toByteArray(),
          "a block fetched from hb's true address came from the address a stranger named");
    }
  }

  @Test
  void anEmbeddedAgentWithoutASecretFetchesForItsOwnProcessOnly() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("blockmgr-1")).toRealPath();
    try (LocalAgent own =
        LocalAgent.embed(
            AgentOptions.forHost("exec-1")
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .roots(List.of(dir)))) {
      ProtocolException refused =
          assertThrows(ProtocolException.class, () -> Attack.stranger(group, own.embedded()));
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, refused.code());
      assertTrue(own.isAlive(), "the process's own client is admitted");
      // Other hosts' agents are still served, as the engine's own block server serves them.
      try (Attack.RawPeer peer =
          Attack.RawPeer.connect(group, own.embedded(), "exec-2", Credentials.NONE)) {
        assertEquals(FrameType.HELLO_ACK, peer.next().type());
      }
    }
  }

  @Test
  void aNodeManagersAgentWithoutAClusterSecretAdmitsOnlyClientsWithAJobToken() throws Exception {
    Path root = tmp.toRealPath();
    org.coflow.courier.auth.Secret token =
        org.coflow.courier.auth.Secret.ofEngine("the job's token".getBytes(), "token");
    try (CourierAgent nm =
        CourierAgent.start(
            AgentOptions.forHost("nm-1")
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .roots(List.of(root))
                .keys(
                    org.coflow.courier.auth.KeyRing.open()
                        .refuseAnonymousClients()
                        .addClient(Credentials.mapReduce("job_1_0001"), token)))) {
      ProtocolException refused =
          assertThrows(ProtocolException.class, () -> Attack.stranger(group, nm));
      assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, refused.code());
      try (CourierClient reducer = Attack.job(group, nm, "job_1_0001", token)) {
        assertTrue(reducer.isOpen(), "a reducer proving its job's token is admitted");
      }
      try (Attack.RawPeer peer = Attack.RawPeer.connect(group, nm, "nm-2", Credentials.NONE)) {
        assertEquals(FrameType.HELLO_ACK, peer.next().type(), "other hosts' agents are served");
      }
    }
  }
}
