package org.coflow.courier.testing;

import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.merge.CourierConfig;
import org.coflow.courier.transport.TransportContext;

/** Options of a test agent on loopback, at any free port. */
public final class Agents {
  private Agents() {}

  /** A local client's connection to the agent of {@code hostId} at {@code agent}. */
  public static CourierClient client(EventLoopGroup group, InetSocketAddress agent, String hostId)
      throws InterruptedException {
    return CourierClient.connect(
        new TransportContext(group, CourierAgent.MAX_FRAME), agent, hostId);
  }

  /**
   * Registers executor {@code execId}'s Spark shuffle files under {@code dir} (ADLER32 checksums).
   */
  public static void registerSpark(CourierClient registrar, String appId, String execId, Path dir)
      throws Exception {
    registrar
        .register(
            RegisterSpark.newBuilder()
                .setAppId(appId)
                .setExecId(execId)
                .addLocalDirs(dir.toString())
                .setSubDirsPerLocalDir(64)
                .setChecksumAlgorithm("ADLER32")
                .build())
        .get(10, TimeUnit.SECONDS);
  }

  public static AgentOptions local(String hostId, int threads) {
    return AgentOptions.forHost(hostId)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .set(CourierConfig.THREADS, threads);
  }
}
