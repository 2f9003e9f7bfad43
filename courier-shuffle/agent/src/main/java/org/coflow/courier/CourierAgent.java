package org.coflow.courier;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.courier.adapt.AdaptiveMaxNum;
import org.coflow.courier.adapt.MaxNumController;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.KeyRing;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.fetch.BlockConsumer;
import org.coflow.courier.fetch.FetchService;
import org.coflow.courier.fetch.LocalFetches;
import org.coflow.courier.flow.FlowKey;
import org.coflow.courier.flow.MasterSchedule;
import org.coflow.courier.flow.PairSchedule;
import org.coflow.courier.protocol.HostPort;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.server.AgentServer;
import org.coflow.courier.transport.TransportContext;

/**
 * The Courier agent of one host, embedded in the calling process (tests, local mode; the daemon and
 * the NodeManager aux service wrap the same class): it serves what local processes register,
 * fetches for local clients from other hosts' agents over one unified connection per host, and
 * listens on one port for both.
 */
public final class CourierAgent implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CourierAgent.class);

  /** Default chunk: 64 KiB. */
  public static final int CHUNK_SIZE = 64 << 10;

  /** Bytes a stream may have in flight between agents before it waits for credit. */
  public static final long WINDOW = 4L << 20;

  /** Largest frame accepted: a chunk, or a fetch request naming many blocks. */
  public static final int MAX_FRAME = 16 << 20;

  private final String hostId;
  private final NioEventLoopGroup group;
  private final BlockRegistry registry;
  private final FetchService fetcher;
  private final LocalFetches fetches;
  private final AgentServer server;
  private final KeyRing keys;
  private final Credentials credentials;

  /** The master's schedule, applied to the fetching side. */
  private final MasterSchedule schedule;

  private MasterClient masterClient;
  private boolean closed;
  private ScheduledFuture<?> reporter;
  private MaxNumController maxNumController;

  /** How often flows are handed to the master client (which sends them every master interval). */
  static final long REPORT_MILLIS = 20;

  private CourierAgent(
      String hostId,
      NioEventLoopGroup group,
      BlockRegistry registry,
      FetchService fetcher,
      LocalFetches fetches,
      AgentServer server,
      KeyRing keys,
      Credentials credentials) {
    this.keys = keys;
    this.credentials = credentials;
    this.hostId = hostId;
    this.group = group;
    this.registry = registry;
    this.fetcher = fetcher;
    this.schedule = new MasterSchedule(fetcher.schedules(), fetcher.flows()::keyOf);
    this.fetches = fetches;
    this.server = server;
  }

  /**
   * Starts the agent {@code options} describe: it listens at once, and, if a master is set, reports
   * its flows to it and orders what it fetches by the schedule the master pushes. Data never waits
   * for the master: without a schedule every coflow has priority 0 and streams share the link.
   *
   * @throws IllegalArgumentException for a bad setting (a missing directory, a port in use)
   */
  public static CourierAgent start(AgentOptions options) throws InterruptedException {
    String hostId = options.hostId();
    LinkRate link = options.linkRate();
    NioEventLoopGroup group = new NioEventLoopGroup(options.threads());
    try {
      TransportContext transport = new TransportContext(group, MAX_FRAME, options.credentials());
      BlockRegistry registry = new BlockRegistry(options.roots());
      if (!options.clientRegistrations()) {
        registry.refuseClientRegistrations();
      }
      KeyRing keys = options.keys();
      warnWhatIsExposed(hostId, keys, registry);
      FetchService fetcher =
          new FetchService(
              transport, hostId, WINDOW, options.maxNum(), options.minSize(), options.merge());
      fetcher.lane(options.lane());
      if (link.limited()) {
        // The same rate caps what the host receives, in a bucket of its own.
        fetcher.receiveCap(LinkRate.withSlack(link.bytesPerSecond(), CHUNK_SIZE));
      }
      LocalFetches fetches = new LocalFetches(registry, fetcher);
      AgentServer server =
          AgentServer.bind(
              transport,
              options.bindAddress(),
              hostId,
              keys,
              options.limits(),
              registry,
              fetches,
              CHUNK_SIZE,
              link,
              fetcher.metrics());
      CourierAgent agent =
          new CourierAgent(
              hostId, group, registry, fetcher, fetches, server, keys, options.credentials());
      AdaptiveMaxNum adaptive = options.adaptiveMaxNum();
      if (adaptive != null) {
        agent.maxNumController =
            MaxNumController.start(
                fetcher, adaptive, options.adaptiveIntervalMillis(), group.next());
      }
      if (options.master() != null) {
        agent.connectMaster(
            options.master(), link, options.engineAddress(), options.masterCredentials());
      }
      return agent;
    } catch (InterruptedException | RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** Says once, loudly, what an agent without secrets or directories exposes. */
  private static void warnWhatIsExposed(String hostId, KeyRing keys, BlockRegistry registry) {
    if (keys.isOpen()) {
      LOG.warn(
          "Courier agent of host {} runs WITHOUT AUTHENTICATION: anyone who can reach its port "
              + "can fetch every block it serves (from {}), have it fetch from any address "
              + "named as another host's agent. Set a secret (coflow.courier.secretFile, "
              + "spark.authenticate, mapreduce.shuffle.courier.secretFile): docs/security.md",
          hostId,
          registry.roots());
    }
    if (registry.roots().isEmpty()) {
      LOG.warn(
          "Courier agent of host {} has no directories (coflow.courier.dirs / --dirs): it serves "
              + "nothing",
          hostId);
    }
  }

  /** The secrets this agent accepts proofs of (a NodeManager adds each job's token). */
  public KeyRing keys() {
    return keys;
  }

  /** What this agent and its own clients prove. */
  public Credentials credentials() {
    return credentials;
  }

  /** What the agent's data plane measured: waits, first bytes, streams per reader. */
  public org.coflow.courier.metrics.DataPlaneMetrics metrics() {
    return fetcher.metrics();
  }

  /** The listening side: connections open, refused, bytes buffered. */
  public AgentServer server() {
    return server;
  }

  /**
   * Bytes this agent fetched from other hosts' agents since it started (agent-to-agent traffic).
   */
  public long bytesFetchedFromPeers() {
    return fetcher.bytesReceived();
  }

  private void connectMaster(
      String target,
      LinkRate link,
      String engineAddress,
      org.coflow.api.client.MasterCredentials credentials) {
    masterClient =
        new MasterClient(
            new MasterClientOptions(target, hostId)
                .credentials(credentials)
                .addresses(HostPort.of(server.address()).toString(), engineAddress)
                .capacity(link.bytesPerSecond(), link.bytesPerSecond()),
            new MasterClient.Listener() {
              @Override
              public void onSchedule(ScheduleUpdate update) {
                schedule.apply(update);
              }

              @Override
              public void onDisconnected(io.grpc.Status status, long retryInMillis) {
                // A schedule from a master we cannot reach is stale: back to the local policy.
                schedule.clear();
              }
            });
    masterClient.start();
    reporter =
        group
            .next()
            .scheduleAtFixedRate(
                () -> fetcher.flows().report(masterClient),
                REPORT_MILLIS,
                REPORT_MILLIS,
                TimeUnit.MILLISECONDS);
  }

  public String hostId() {
    return hostId;
  }

  /** host:port other agents and local clients connect to. */
  public InetSocketAddress address() {
    return server.address();
  }

  public BlockRegistry registry() {
    return registry;
  }

  /**
   * Sets a coflow's priority for the blocks this agent fetches (lower first): sent with new
   * requests and to every serving agent that has some of its streams. The master's schedule calls
   * this; without one every coflow has priority 0.
   */
  public void setPriority(String coflowId, int priority) {
    fetcher.schedules().setPriority(coflowId, priority);
  }

  /**
   * Sets the schedule of {@code coflowId}'s blocks from {@code srcHost}: priority and, for RATE
   * policies, bytes/s (0: not paced; a flow with no rate goes by its priority). The master's
   * schedule calls this.
   */
  public void setSchedule(String coflowId, String srcHost, int priority, double rate) {
    fetcher.schedules().setSchedule(FlowKey.of(coflowId, srcHost), PairSchedule.of(priority, rate));
  }

  /**
   * Ends the schedule of {@code coflowId}'s blocks from {@code srcHost}: they keep their priority
   * but lose their pace (a rate nobody renews must not hold them back). The master's schedule calls
   * this when it drops the flow.
   */
  public void unschedule(String coflowId, String srcHost) {
    fetcher.schedules().unschedule(FlowKey.of(coflowId, srcHost));
  }

  /**
   * Fetches {@code blocks} for a client in this process (which owns what was registered in-process,
   * {@link BlockRegistry#IN_PROCESS}), without the loopback connection a client connection would
   * use (an engine that embeds its agent): the same local-fetch path ({@link LocalFetches}), flows,
   * schedule and checks, with streamed bytes handed to {@code consumer} on the connection's thread
   * (it must not block) and target files written here.
   *
   * @return per block, a future of its length, failed with a {@link ProtocolException}
   */
  public List<CompletableFuture<Long>> fetchBlocks(
      String coflowId, List<RemoteBlock> blocks, BlockConsumer consumer) {
    List<CompletableFuture<Long>> out = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      CompletableFuture<Long> done = new CompletableFuture<>();
      out.add(done);
      int index = i;
      fetches.fetch(
          BlockRegistry.IN_PROCESS,
          coflowId,
          blocks.get(i),
          WINDOW,
          false,
          LocalFetches.completing(done, data -> consumer.accept(index, data)),
          handle -> {});
    }
    return out;
  }

  /** Whether {@link #close} was called. */
  public synchronized boolean isClosed() {
    return closed;
  }

  /**
   * The most data connections this agent may hold now (Courier's MaxNum, {@code
   * coflow.courier.maxNum}, or what the adaptive controller chose).
   */
  public int connectionBudget() {
    return fetcher.maxNum();
  }

  /**
   * How often the adaptive controller changed the budget ({@code coflow.courier.maxNum.adaptive});
   * 0 without it.
   */
  public int connectionBudgetChanges() {
    return maxNumController == null ? 0 : maxNumController.changes();
  }

  /** Open data connections this agent holds to other hosts' agents: bulk ones and lanes. */
  public int dataConnections() {
    return fetcher.connections() + fetcher.lanes();
  }

  /** Latency lanes this agent holds (one per peer at most, outside MaxNum). */
  public int laneConnections() {
    return fetcher.lanes();
  }

  /** The most bulk data connections (MaxNum's) this agent has held at once; lanes come on top. */
  public int maxDataConnections() {
    return fetcher.maxConnections();
  }

  /** Data connections this agent holds to {@code host}'s agent. */
  public int dataConnectionsTo(String host) {
    return fetcher.connectionsTo(host);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return; // idempotent: an owner may close on failure paths more than once
      }
      closed = true;
    }
    if (reporter != null) {
      reporter.cancel(false);
    }
    if (maxNumController != null) {
      maxNumController.close();
    }
    if (masterClient != null) {
      try {
        masterClient.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    server.close();
    fetcher.close();
    if (metrics().streams.sum() + metrics().served.sum() > 0) {
      LOG.info("Courier agent of host {} data plane: {}", hostId, metrics().line());
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
