package org.coflow.courier.testing;

import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.transport.TransportContext;

/** Options of a test agent on loopback, at any free port. */
public final class Agents {
  private Agents() {}

  /** A cluster secret for tests. */
  public static final org.coflow.courier.auth.Credentials CLUSTER =
      org.coflow.courier.auth.Credentials.of(
          org.coflow.courier.auth.Credentials.CLUSTER,
          org.coflow.courier.auth.Secret.of(
              "a test cluster's secret, 32 bytes".getBytes(java.nio.charset.StandardCharsets.UTF_8),
              "test secret"));

  /** A local client's connection, proving {@code credentials}, to the agent at {@code agent}. */
  public static CourierClient client(
      EventLoopGroup group,
      InetSocketAddress agent,
      String hostId,
      org.coflow.courier.auth.Credentials credentials)
      throws InterruptedException {
    return CourierClient.connect(
        new TransportContext(group, CourierAgent.MAX_FRAME, credentials), agent, hostId);
  }

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

  /**
   * A standalone-style agent on loopback: it serves the system's temporary directory (where the
   * tests' shuffle files are) and takes registrations from client connections.
   */
  public static AgentOptions local(String hostId, int threads) {
    return AgentOptions.forHost(hostId)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .set(CourierConfig.THREADS, threads)
        .roots(java.util.List.of(tmp()))
        .clientRegistrations(true);
  }

  /** The system's temporary directory, where JUnit's {@code @TempDir}s live. */
  public static Path tmp() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }
}
