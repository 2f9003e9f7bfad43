package org.coflow.courier;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.Map;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.ScheduleUpdate;
import java.util.concurrent.TimeUnit;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.fetch.FetchService;
import org.coflow.courier.merge.CourierConfig;
import org.coflow.courier.serve.BlockRegistry;
import org.coflow.courier.transport.AgentServer;

/**
 * The Courier agent of one host, embedded in the calling process (tests, local mode; the daemon
 * and the NodeManager aux service wrap the same class): it serves what local processes register,
 * fetches for local clients from other hosts' agents over one unified connection per host, and
 * listens on one port for both.
 */
public final class CourierAgent implements AutoCloseable {
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
  private final AgentServer server;
  private MasterClient masterClient;
  private boolean closed;
  private java.util.concurrent.ScheduledFuture<?> reporter;
  /** How often flows are handed to the master client (which sends them every master interval). */
  static final long REPORT_MILLIS = 20;

  private CourierAgent(String hostId, NioEventLoopGroup group, BlockRegistry registry,
      FetchService fetcher, AgentServer server) {
    this.hostId = hostId;
    this.group = group;
    this.registry = registry;
    this.fetcher = fetcher;
    this.server = server;
  }

  /**
   * Starts an agent for {@code hostId} listening on {@code bind} (port 0: any free port).
   *
   * @param threads event loop threads (serving and fetching share them)
   */
  public static CourierAgent start(String hostId, InetSocketAddress bind, int threads) throws InterruptedException {
    return start(hostId, bind, threads, LinkRate.UNLIMITED);
  }

  /**
   * Like {@link #start(String, InetSocketAddress, int)}, sending at most at {@code link}'s rate
   * (all connections together).
   */
  public static CourierAgent start(String hostId, InetSocketAddress bind, int threads, LinkRate link)
      throws InterruptedException {
    return start(hostId, bind, threads, link, null);
  }

  /**
   * Like {@link #start(String, InetSocketAddress, int, LinkRate)}, reporting its flows to the
   * master at {@code master} (host:port; null for none) and ordering what it fetches by the
   * schedule the master pushes. Data never waits for the master: without a schedule every coflow
   * has priority 0 and streams share the link.
   */
  public static CourierAgent start(String hostId, InetSocketAddress bind, int threads, LinkRate link,
      String master) throws InterruptedException {
    return start(hostId, bind, threads, link, master, java.util.List.of(),
        CourierConfig.MAX_NUM.defaultValue(), CourierConfig.MIN_SIZE.defaultValue());
  }

  /**
   * The general form: as above, accepting registrations only of directories inside {@code roots}
   * (empty: any), holding at most {@code maxNum} data connections and splitting unified flows
   * above {@code minSize} bytes (Courier Alg. 3).
   */
  public static CourierAgent start(String hostId, InetSocketAddress bind, int threads, LinkRate link,
      String master, java.util.List<java.nio.file.Path> roots, int maxNum, double minSize)
      throws InterruptedException {
    return start(hostId, bind, threads, link, master, roots, maxNum, minSize, "");
  }

  /**
   * As above, registering {@code engineAddress} with the master too (MapReduce: the NodeManager's
   * shuffle host:port, by which readers find this agent in the master's registry).
   */
  public static CourierAgent start(String hostId, InetSocketAddress bind, int threads, LinkRate link,
      String master, java.util.List<java.nio.file.Path> roots, int maxNum, double minSize, String engineAddress)
      throws InterruptedException {
    if (hostId == null || hostId.isEmpty()) {
      throw new IllegalArgumentException("an agent needs a host id");
    }
    NioEventLoopGroup group = new NioEventLoopGroup(threads);
    try {
      BlockRegistry registry = new BlockRegistry(roots);
      FetchService fetcher = new FetchService(group, hostId, WINDOW, MAX_FRAME, maxNum, minSize);
      if (link.limited()) {
        // The same rate caps what the host receives, in a bucket of its own.
        fetcher.receiveCap(LinkRate.withSlack(link.bytesPerSecond(), CHUNK_SIZE));
      }
      AgentServer server = AgentServer.bind(group, group, bind, hostId, registry, fetcher, CHUNK_SIZE,
          MAX_FRAME, link);
      CourierAgent agent = new CourierAgent(hostId, group, registry, fetcher, server);
      if (master != null) {
        agent.connectMaster(master, link, engineAddress);
      }
      return agent;
    } catch (InterruptedException | RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** Bytes this agent fetched from other hosts' agents since it started (agent-to-agent traffic). */
  public long bytesFetchedFromPeers() {
    return fetcher.bytesReceived();
  }

  private void connectMaster(String target, LinkRate link, String engineAddress) {
    InetSocketAddress a = server.address();
    masterClient = new MasterClient(new MasterClientOptions(target, hostId)
        .addresses(a.getHostString() + ":" + a.getPort(), engineAddress)
        .capacity(link.bytesPerSecond(), link.bytesPerSecond()), new MasterClient.Listener() {
          @Override
          public void onSchedule(ScheduleUpdate update) {
            applySchedule(update.getPolicyType() == org.coflow.api.proto.v1.PolicyType.POLICY_TYPE_RATE);
          }

          @Override
          public void onDisconnected(io.grpc.Status status, long retryInMillis) {
            // A schedule from a master we cannot reach is stale: back to the local policy.
            fetcher.clearSchedules();
          }
        });
    masterClient.start();
    reporter = group.next().scheduleAtFixedRate(() -> fetcher.flows().report(masterClient),
        REPORT_MILLIS, REPORT_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * The master's per-flow decisions (a flow = a coflow's blocks from one host) become the
   * priorities, and for RATE policies the paces, of those blocks at their serving agents.
   */
  private void applySchedule(boolean rates) {
    java.util.Set<String> scheduled = new java.util.HashSet<>();
    for (Map.Entry<Long, FlowSchedule> e : masterClient.flowSchedules().entrySet()) {
      String coflow = fetcher.flows().coflowOf(e.getKey());
      String src = fetcher.flows().srcOf(e.getKey());
      if (coflow != null && src != null) {
        fetcher.setSchedule(coflow, src, e.getValue().getPriority(),
            rates ? e.getValue().getRateBytesPerSec() : 0);
        scheduled.add(org.coflow.courier.fetch.FlowTracker.key(coflow, src));
      }
    }
    unpaceAllBut(scheduled);
  }

  /**
   * Lifts the pace of every flow not in {@code scheduled} ({@link org.coflow.courier.fetch.FlowTracker#key}
   * of coflow and source host), keeping its priority: the master's schedule calls this with the
   * flows it still covers.
   */
  public void unpaceAllBut(java.util.Set<String> scheduled) {
    fetcher.unpaceAllBut(scheduled);
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
   * requests and to every serving agent that has some of its streams. The master's schedule
   * calls this; without one every coflow has priority 0.
   */
  public void setPriority(String coflowId, int priority) {
    fetcher.setPriority(coflowId, priority);
  }

  /**
   * Sets the schedule of {@code coflowId}'s blocks from {@code srcHost}: priority and, for RATE
   * policies, bytes/s (0: not paced; a flow with no rate goes by its priority). The master's
   * schedule calls this.
   */
  public void setSchedule(String coflowId, String srcHost, int priority, double rate) {
    fetcher.setSchedule(coflowId, srcHost, priority, rate);
  }

  /**
   * Fetches {@code blocks} for a client in this process, without the loopback connection a
   * {@link org.coflow.courier.fetch.CourierClient} would use (an engine that embeds its agent):
   * the same flows, schedule and checks, with streamed bytes handed to {@code consumer} on the
   * connection's thread (it must not block) and target files written here.
   *
   * @return per block, a future of its length, failed with a ProtocolException
   */
  public java.util.List<java.util.concurrent.CompletableFuture<Long>> fetchBlocks(String coflowId,
      java.util.List<org.coflow.api.proto.courier.v1.RemoteBlock> blocks,
      org.coflow.courier.fetch.CourierClient.BlockConsumer consumer) {
    java.util.List<java.util.concurrent.CompletableFuture<Long>> out = new java.util.ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      org.coflow.api.proto.courier.v1.RemoteBlock b = blocks.get(i);
      java.util.concurrent.CompletableFuture<Long> done = new java.util.concurrent.CompletableFuture<>();
      out.add(done);
      org.coflow.courier.fetch.BlockSink sink;
      if (b.getTargetFile().isEmpty()) {
        sink = new InProcessSink(i, consumer, done);
      } else {
        java.nio.file.Path target = java.nio.file.Path.of(b.getTargetFile());
        if (!registry.mayWrite(target)) {
          done.completeExceptionally(new org.coflow.courier.protocol.ProtocolException(
              org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_INVALID, "target file '" + b.getTargetFile()
                  + "' is not an absolute file path inside a registered directory"));
          continue;
        }
        sink = new InProcessFile(target, done);
      }
      try {
        fetcher.fetch(coflowId, b, sink, WINDOW, true, handle -> {});
      } catch (java.util.concurrent.RejectedExecutionException e) {
        done.completeExceptionally(new org.coflow.courier.protocol.ProtocolException(
            org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_UNREACHABLE, "the agent is stopped"));
      }
    }
    return out;
  }

  /** Whether {@link #close} was called. */
  public synchronized boolean isClosed() {
    return closed;
  }

  /** A streamed block's bytes to an in-process consumer. */
  private static final class InProcessSink implements org.coflow.courier.fetch.BlockSink {
    private final int index;
    private final org.coflow.courier.fetch.CourierClient.BlockConsumer consumer;
    private final java.util.concurrent.CompletableFuture<Long> done;
    private long length;

    InProcessSink(int index, org.coflow.courier.fetch.CourierClient.BlockConsumer consumer,
        java.util.concurrent.CompletableFuture<Long> done) {
      this.index = index;
      this.consumer = consumer;
      this.done = done;
    }

    @Override
    public void start(long length, long rawLength) {}

    @Override
    public void write(io.netty.buffer.ByteBuf data) {
      length += data.readableBytes();
      consumer.accept(index, data);
    }

    @Override
    public void complete() {
      done.complete(length);
    }

    @Override
    public void fail(org.coflow.api.proto.courier.v1.ErrorCode code, String message) {
      done.completeExceptionally(new org.coflow.courier.protocol.ProtocolException(code, message));
    }
  }

  /** A block written into a file for an in-process client. */
  private static final class InProcessFile implements org.coflow.courier.fetch.BlockSink {
    private final org.coflow.courier.fetch.FileSink file;
    private final java.util.concurrent.CompletableFuture<Long> done;
    private long length;

    InProcessFile(java.nio.file.Path target, java.util.concurrent.CompletableFuture<Long> done) {
      this.file = new org.coflow.courier.fetch.FileSink(target);
      this.done = done;
    }

    @Override
    public void start(long length, long rawLength) throws java.io.IOException {
      this.length = length;
      file.start(length, rawLength);
    }

    @Override
    public void write(io.netty.buffer.ByteBuf data) throws java.io.IOException {
      file.write(data);
    }

    @Override
    public void complete() throws java.io.IOException {
      file.complete();
      done.complete(length);
    }

    @Override
    public void fail(org.coflow.api.proto.courier.v1.ErrorCode code, String message) {
      file.fail(code, message);
      done.completeExceptionally(new org.coflow.courier.protocol.ProtocolException(code, message));
    }
  }

  /** Open data connections this agent holds to other hosts' agents. */
  public int dataConnections() {
    return fetcher.connections();
  }

  /** The most data connections this agent has held at once. */
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
    if (masterClient != null) {
      try {
        masterClient.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    server.close();
    fetcher.close();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
