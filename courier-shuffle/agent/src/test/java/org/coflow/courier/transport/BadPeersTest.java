package org.coflow.courier.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.protocol.Preamble;
import org.coflow.courier.testing.Agents;
import org.coflow.courier.testing.LeakCheck;
import org.coflow.courier.testing.ShuffleFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Misbehaving peers get an error or a clean close; the agent keeps serving everyone else. */
@ExtendWith(LeakCheck.class)
class BadPeersTest {

  /** Writes the preamble and a HELLO of {@code role} as raw bytes. */
  private static DataOutputStream hello(Socket s, Role role, String host) throws Exception {
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    out.writeInt(Preamble.MAGIC);
    out.writeInt(Preamble.VERSION);
    byte[] header = Hello.newBuilder().setRole(role).setHostId(host).build().toByteArray();
    out.writeInt(1 + 4 + header.length);
    out.writeByte(FrameType.HELLO.id());
    out.writeInt(header.length);
    out.write(header);
    out.flush();
    return out;
  }

  @Test
  void unknownFramesAndClientsOfOtherHostsAreRefused(@TempDir Path tmp) throws Exception {
    try (CourierAgent agent = CourierAgent.start(Agents.local("exec-0", 1))) {
      try (Socket s = new Socket("127.0.0.1", agent.address().getPort())) {
        DataOutputStream out = hello(s, Role.ROLE_AGENT, "exec-9");
        out.writeInt(5);
        out.writeByte(0x7f);
        out.writeInt(0);
        out.flush();
        String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(
            reply.contains("unknown frame type 127"), "an ERROR frame naming the type: " + reply);
      }
      try (Socket s = new Socket("127.0.0.1", agent.address().getPort())) {
        hello(s, Role.ROLE_CLIENT, "exec-5");
        String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(reply.contains("exec-5") && reply.contains("own host"), reply);
      }
      try (Socket s = new Socket("127.0.0.1", agent.address().getPort())) {
        DataOutputStream out = hello(s, Role.ROLE_AGENT, "exec-9");
        out.writeInt(Integer.MAX_VALUE);
        out.flush();
        String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(reply.contains("longer than the limit"), reply);
      }
    }
  }

  @Test
  void aClientThatVanishesMidStreamCostsOthersNothing(@TempDir Path tmp) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (CourierAgent sender =
            CourierAgent.start(Agents.local("exec-1", 1).link(new LinkRate(16 << 20, 64 << 10)));
        CourierAgent fetcher = CourierAgent.start(Agents.local("exec-0", 1))) {
      Path dir = Files.createDirectories(tmp.resolve("blockmgr")).toRealPath();
      byte[][] parts =
          ShuffleFiles.writeSparkMapOutput(
              new Random(3), List.of(dir), 0, 0, new int[] {8 << 20, 1 << 20}, true);
      try (CourierClient registrar = Agents.client(group, sender.address(), "exec-1")) {
        Agents.registerSpark(registrar, "app", "1", dir);
      }
      CourierClient leaver = Agents.client(group, fetcher.address(), "exec-0");
      leaver.fetch("app/0", List.of(block(sender, 0)), d -> {}, 256 << 10);
      Thread.sleep(100);
      leaver.close();
      try (CourierClient stayer = Agents.client(group, fetcher.address(), "exec-0")) {
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        long n =
            stayer
                .fetch(
                    "app/1",
                    List.of(block(sender, 1)),
                    d -> {
                      byte[] b = new byte[d.readableBytes()];
                      d.getBytes(d.readerIndex(), b);
                      got.write(b, 0, b.length);
                    },
                    1 << 20)
                .get(0)
                .get(20, TimeUnit.SECONDS);
        assertEquals(1 << 20, n);
        assertArrayEquals(parts[1], got.toByteArray());
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static RemoteBlock block(CourierAgent sender, int reduce) {
    return RemoteBlock.newBuilder()
        .setHostId("exec-1")
        .setAgentAddress("127.0.0.1:" + sender.address().getPort())
        .setBlock(
            BlockRef.newBuilder().setBlockSet("spark/app/1").setBlock("shuffle_0_0_" + reduce))
        .build();
  }
}
