package org.coflow.courier.testing;

import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
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

  public static AgentOptions local(String hostId, int threads) {
    return AgentOptions.forHost(hostId)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .set(CourierConfig.THREADS, threads);
  }
}
