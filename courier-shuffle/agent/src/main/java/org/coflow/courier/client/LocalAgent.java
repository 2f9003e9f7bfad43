package org.coflow.courier.client;

import io.netty.channel.nio.NioEventLoopGroup;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.KeyRing;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.fetch.BlockConsumer;
import org.coflow.courier.protocol.HostPort;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.transport.TransportContext;

/**
 * A process's way to its host's agent, the same for every engine: an agent it embeds (a Spark
 * executor's own, started from {@link AgentOptions}) or the host's agent reached at its address (a
 * daemon, a NodeManager's). Registrations go over a client connection either way; fetches go
 * in-process to an embedded agent (no loopback connection, no second framing of every byte) and
 * over the connection otherwise. Thread-safe.
 */
public final class LocalAgent implements AutoCloseable {
  private final String hostId;
  private final HostPort address;

  /** Null when the host's agent runs elsewhere. */
  private final CourierAgent embedded;

  private final NioEventLoopGroup group;
  private final CourierClient client;
  private boolean closed;

  private LocalAgent(
      String hostId,
      HostPort address,
      CourierAgent embedded,
      NioEventLoopGroup group,
      CourierClient client) {
    this.hostId = hostId;
    this.address = address;
    this.embedded = embedded;
    this.group = group;
    this.client = client;
  }

  /**
   * Starts an agent in this process and connects to it (with the agent's own credentials, or, when
   * it has none, a secret only this process holds: an embedded agent fetches for nobody else). What
   * this process registers is registered in-process, owned by it alone.
   */
  public static LocalAgent embed(AgentOptions options) throws InterruptedException {
    Credentials own = options.credentials();
    Credentials client = own;
    if (!own.present()) {
      // Open to other hosts' agents, as the engine's own block server is; but its clients must
      // prove a secret only this process holds.
      Secret mine = Secret.random();
      client = Credentials.of(Credentials.PROCESS, mine);
      options.keys(KeyRing.open().ownClientsOnly(Credentials.PROCESS, mine));
    }
    CourierAgent agent = CourierAgent.start(options);
    try {
      return connect(agent, options.hostId(), HostPort.of(agent.address()), client);
    } catch (InterruptedException | RuntimeException | Error e) {
      agent.close();
      throw e;
    }
  }

  /**
   * Reaches the agent of {@code hostId} (this process's host), running elsewhere at {@code
   * address}.
   */
  public static LocalAgent reach(String hostId, HostPort address, Credentials credentials)
      throws InterruptedException {
    return connect(null, hostId, address, credentials);
  }

  private static LocalAgent connect(
      CourierAgent embedded, String hostId, HostPort address, Credentials credentials)
      throws InterruptedException {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try {
      CourierClient client =
          CourierClient.connect(
              new TransportContext(group, CourierAgent.MAX_FRAME, credentials),
              address.toAddress(),
              hostId);
      return new LocalAgent(hostId, address, embedded, group, client);
    } catch (InterruptedException | RuntimeException | Error e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** The host id this process's data is served as. */
  public String hostId() {
    return hostId;
  }

  /** Where the agent listens (what other hosts' readers are told). */
  public HostPort address() {
    return address;
  }

  /** The agent, when this process runs it; null when it runs elsewhere. */
  public CourierAgent embedded() {
    return embedded;
  }

  /** Registers an executor's files: in-process with an embedded agent, else over the connection. */
  public CompletableFuture<String> register(RegisterSpark req) {
    if (embedded != null) {
      return inProcess(() -> embedded.registry().register(req, BlockRegistry.IN_PROCESS).id());
    }
    return client.register(req);
  }

  public CompletableFuture<String> register(RegisterMapReduce req) {
    if (embedded != null) {
      return inProcess(() -> embedded.registry().register(req, BlockRegistry.IN_PROCESS).id());
    }
    return client.register(req);
  }

  private static CompletableFuture<String> inProcess(java.util.function.Supplier<String> r) {
    try {
      return CompletableFuture.completedFuture(r.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Fetches {@code blocks} as one request of {@code coflowId}: each into its target file, or
   * streamed to {@code consumer} (on a connection's thread; it must not block).
   *
   * @param window bytes a streamed block may have in flight (over a client connection)
   * @return per block, a future of its length, failed with a {@code ProtocolException}
   */
  public List<CompletableFuture<Long>> fetchBlocks(
      String coflowId, List<RemoteBlock> blocks, BlockConsumer consumer, long window) {
    return embedded != null
        ? embedded.fetchBlocks(coflowId, blocks, consumer)
        : client.fetchBlocks(coflowId, blocks, consumer, window);
  }

  /** One block as a blocking stream ({@link CourierClient#stream}). */
  public BlockStream stream(String coflowId, RemoteBlock block, long window) {
    return client.stream(coflowId, block, window);
  }

  /** Whether the agent can still be used (the connection is up; an embedded agent is running). */
  public boolean isAlive() {
    return client.isOpen() && (embedded == null || !embedded.isClosed());
  }

  /**
   * Bytes the embedded agent fetched from other agents since it started (0 when it runs elsewhere).
   */
  public long bytesFetchedFromPeers() {
    return embedded == null ? 0 : embedded.bytesFetchedFromPeers();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    client.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    if (embedded != null) {
      embedded.close();
    }
  }
}
