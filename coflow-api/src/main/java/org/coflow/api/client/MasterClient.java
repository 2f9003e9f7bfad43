package org.coflow.api.client;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.CloseSessionRequest;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.OpenSessionResponse;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.api.proto.v1.ReportAck;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.api.proto.v1.WatchScheduleRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's connection to the coflow master: opens a session, reports the agent's flows every
 * interval and keeps the latest schedule the master pushed.
 *
 * <p>The agent tells the client about its flows ({@link #updateFlow}, {@link #finishFlow}) from any
 * thread; the client sends only what changed since the last batch. When the master is unreachable
 * or restarts, the client reconnects with exponential backoff (reset after every successful
 * session) and, on the new session, resends every flow with its spec, so a restarted master
 * rebuilds its state from one round of reports. Data never waits on the client: an agent without a
 * schedule schedules locally.
 *
 * <p>Thread-safe. All network work runs on one scheduler thread (the caller's, if given).
 */
public final class MasterClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MasterClient.class);

  /** Largest report batch sent (the master's default limit is 100,000). */
  static final int MAX_FLOWS_PER_BATCH = 10_000;

  /** Receives schedule updates on the client's scheduler thread. */
  public interface Listener {
    /** A schedule update was applied; {@link MasterClient#flowSchedules()} shows the result. */
    void onSchedule(ScheduleUpdate update);

    /** A session was opened on a master (a new one after a restart). */
    default void onSession(OpenSessionResponse session) {}

    /** The connection failed; the client retries after {@code retryInMillis}. */
    default void onDisconnected(Status status, long retryInMillis) {}
  }

  private final MasterClientOptions options;
  private final Listener listener;
  private final ManagedChannel channel;

  /** The client's own event loop ({@link MasterClientOptions#channelThreads}), or null. */
  private final NioEventLoopGroup eventLoop;

  private final AgentServiceGrpc.AgentServiceStub stub;
  private final ScheduledExecutorService scheduler;
  private final boolean ownScheduler;

  private final Map<Long, LocalFlow> flows = new LinkedHashMap<>();
  private final Map<Long, FlowSchedule> flowSchedules = new HashMap<>();

  /** Scheduler-thread state. */
  private int generation;

  private String sessionId;

  /** The last session opened, named when reopening so the master knows this agent owns the host. */
  private String previousSessionId = "";

  private ClientCallStreamObserver<ReportBatch> reports;
  private ClientCallStreamObserver<WatchScheduleRequest> watch;
  private long seq;
  private long streamStartSeq;
  private long backoffMillis;
  private long intervalMillis;
  private volatile boolean connected;
  private volatile long epoch;
  private volatile boolean closed;

  public MasterClient(MasterClientOptions options, Listener listener) {
    this.options = options;
    this.listener = listener;
    NettyChannelBuilder builder =
        options
            .credentials()
            .apply(NettyChannelBuilder.forTarget(options.target()), options.target())
            .keepAliveTime(options.keepaliveMillis(), TimeUnit.MILLISECONDS)
            .keepAliveTimeout(options.keepaliveMillis(), TimeUnit.MILLISECONDS)
            .keepAliveWithoutCalls(true)
            .maxInboundMessageSize(options.maxMessageBytes());
    if (options.channelThreads() != null) {
      eventLoop = new NioEventLoopGroup(1, options.channelThreads());
      builder.eventLoopGroup(eventLoop).channelType(NioSocketChannel.class);
    } else {
      eventLoop = null;
    }
    this.channel = builder.build();
    this.stub = AgentServiceGrpc.newStub(channel);
    this.ownScheduler = options.scheduler() == null;
    this.scheduler =
        ownScheduler
            ? Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "coflow-master-client");
                  t.setDaemon(true);
                  return t;
                })
            : options.scheduler();
    this.backoffMillis = options.initialBackoffMillis();
    this.intervalMillis = options.reportIntervalMillis();
  }

  /** Connects in the background; returns at once. */
  public void start() {
    scheduler.execute(this::connect);
  }

  /**
   * Records the current state of a flow: its spec (sent with its first report), bytes sent so far
   * and, when known, bytes remaining ({@code -1} when unknown). Flow ids are unique within the
   * agent: a finished flow's id is not used again.
   *
   * @throws IllegalStateException if {@code flowId} was finished and the master not yet told
   */
  public void updateFlow(long flowId, FlowSpec spec, long bytesSent, long bytesRemaining) {
    synchronized (flows) {
      LocalFlow f = flows.get(flowId);
      if (f != null && f.finished) {
        throw new IllegalStateException(
            "flow "
                + flowId
                + " of host "
                + options.hostId()
                + " is finished; a new flow needs a new id");
      }
      if (f == null) {
        f = new LocalFlow(spec);
        flows.put(flowId, f);
      }
      f.sent = bytesSent;
      f.remaining = bytesRemaining;
      f.dirty = true;
    }
  }

  /** Marks a flow finished; the master is told once, then the client forgets it. */
  public void finishFlow(long flowId) {
    synchronized (flows) {
      LocalFlow f = flows.get(flowId);
      if (f != null) {
        f.finished = true;
        f.dirty = true;
      }
    }
  }

  /** The latest schedule entries of this agent's flows, by flow id (a copy). */
  public Map<Long, FlowSchedule> flowSchedules() {
    synchronized (flowSchedules) {
      return Collections.unmodifiableMap(new HashMap<>(flowSchedules));
    }
  }

  /** The latest schedule entry of one flow, or null if it has none. */
  public FlowSchedule flowSchedule(long flowId) {
    synchronized (flowSchedules) {
      return flowSchedules.get(flowId);
    }
  }

  /** Epoch of the latest applied update, 0 before the first. */
  public long epoch() {
    return epoch;
  }

  public boolean connected() {
    return connected;
  }

  private void connect() {
    if (closed) {
      return;
    }
    int gen = ++generation;
    OpenSessionRequest req =
        OpenSessionRequest.newBuilder()
            .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
            .setHostId(options.hostId())
            .setDataAddress(options.dataAddress())
            .setEngineAddress(options.engineAddress())
            .setUplinkBytesPerSec(options.uplinkBytesPerSec())
            .setDownlinkBytesPerSec(options.downlinkBytesPerSec())
            .putAllLabels(options.labels())
            .setPreviousSessionId(previousSessionId)
            .setSharedHost(options.sharedHost())
            .build();
    stub.withDeadlineAfter(options.callTimeoutMillis(), TimeUnit.MILLISECONDS)
        .openSession(
            req,
            new StreamObserver<>() {
              @Override
              public void onNext(OpenSessionResponse resp) {
                scheduler.execute(() -> opened(gen, resp));
              }

              @Override
              public void onError(Throwable t) {
                scheduler.execute(() -> failed(gen, Status.fromThrowable(t)));
              }

              @Override
              public void onCompleted() {}
            });
  }

  private void opened(int gen, OpenSessionResponse resp) {
    if (gen != generation || closed) {
      return;
    }
    sessionId = resp.getSessionId();
    previousSessionId = sessionId;
    if (options.reportIntervalMillis() == 0) {
      intervalMillis = Math.max(1, resp.getIntervalMs());
    }
    synchronized (flows) {
      for (LocalFlow f : flows.values()) {
        f.specSent = false;
        f.dirty = true;
      }
    }
    watch(gen);
    openReports(gen);
    streamStartSeq = seq;
    connected = true;
    LOG.info(
        "host={} session opened on master {} (policy {}, interval {} ms)",
        options.hostId(),
        resp.getMasterId(),
        resp.getPolicy(),
        resp.getIntervalMs());
    tick(gen);
    notify(() -> listener.onSession(resp));
  }

  private void watch(int gen) {
    stub.watchSchedule(
        WatchScheduleRequest.newBuilder().setSessionId(sessionId).build(),
        new SessionStream<WatchScheduleRequest, ScheduleUpdate>(gen, "schedule") {
          @Override
          public void beforeStart(ClientCallStreamObserver<WatchScheduleRequest> call) {
            watch = call;
          }

          @Override
          public void onNext(ScheduleUpdate update) {
            scheduler.execute(() -> apply(gen, update));
          }
        });
  }

  private void openReports(int gen) {
    stub.report(
        new SessionStream<ReportBatch, ReportAck>(gen, "report") {
          @Override
          public void beforeStart(ClientCallStreamObserver<ReportBatch> call) {
            reports = call;
          }

          @Override
          public void onNext(ReportAck ack) {
            // The master took a batch: the connection works, so the next failure starts afresh.
            scheduler.execute(
                () -> {
                  if (gen == generation) {
                    backoffMillis = options.initialBackoffMillis();
                  }
                });
          }
        });
  }

  /** A stream of one session: its end, for whatever reason, means reconnecting. */
  private abstract class SessionStream<ReqT, RespT> implements ClientResponseObserver<ReqT, RespT> {
    private final int gen;
    private final String name;

    SessionStream(int gen, String name) {
      this.gen = gen;
      this.name = name;
    }

    @Override
    public void onError(Throwable t) {
      scheduler.execute(() -> failed(gen, Status.fromThrowable(t)));
    }

    @Override
    public void onCompleted() {
      scheduler.execute(
          () ->
              failed(
                  gen,
                  Status.UNAVAILABLE.withDescription("the master ended the " + name + " stream")));
    }
  }

  /**
   * Sends what changed now rather than at the next interval, for a new flow the master should
   * schedule soon; the periodic reports go on as before. Does nothing while disconnected.
   */
  public void reportNow() {
    scheduler.execute(
        () -> {
          if (!closed && connected && reports != null && reports.isReady()) {
            for (ReportBatch b : batches()) {
              reports.onNext(b);
            }
          }
        });
  }

  private void tick(int gen) {
    if (gen != generation || closed) {
      return;
    }
    // The first batch of a stream goes out at once (gRPC buffers it until the stream is up), so a
    // new session's flows reach the master in its next round; later batches respect flow control.
    if (seq == streamStartSeq || reports.isReady()) {
      for (ReportBatch b : batches()) {
        reports.onNext(b);
      }
    }
    scheduler.schedule(() -> tick(gen), intervalMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * Every flow that changed since the last batch, in batches of at most {@link
   * #MAX_FLOWS_PER_BATCH}; an empty batch is the heartbeat.
   */
  private List<ReportBatch> batches() {
    List<ReportBatch> out = new ArrayList<>();
    ReportBatch.Builder b = ReportBatch.newBuilder().setSessionId(sessionId).setSeq(++seq);
    synchronized (flows) {
      for (Iterator<Map.Entry<Long, LocalFlow>> it = flows.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, LocalFlow> e = it.next();
        LocalFlow f = e.getValue();
        if (!f.dirty) {
          continue;
        }
        if (f.finished && !f.specSent) {
          it.remove();
          continue;
        }
        FlowReport.Builder r =
            FlowReport.newBuilder()
                .setFlowId(e.getKey())
                .setBytesSent(f.sent)
                .setFinished(f.finished);
        if (f.remaining >= 0) {
          r.setBytesRemaining(f.remaining);
        }
        if (!f.specSent) {
          r.setSpec(f.spec);
          f.specSent = true;
        }
        b.addFlows(r);
        f.dirty = false;
        if (f.finished) {
          it.remove();
        }
        if (b.getFlowsCount() == MAX_FLOWS_PER_BATCH) {
          out.add(b.build());
          b = ReportBatch.newBuilder().setSessionId(sessionId).setSeq(++seq);
        }
      }
    }
    if (out.isEmpty() || b.getFlowsCount() > 0) {
      out.add(b.build());
    } else {
      seq--;
    }
    return out;
  }

  private void apply(int gen, ScheduleUpdate u) {
    if (gen != generation) {
      return;
    }
    synchronized (flowSchedules) {
      if (u.getFull()) {
        flowSchedules.clear();
      }
      // Removals first: an id can leave and come back (a new flow) in one update.
      for (long id : u.getRemovedFlowsList()) {
        flowSchedules.remove(id);
      }
      for (FlowSchedule f : u.getFlowsList()) {
        flowSchedules.put(f.getFlowId(), f);
      }
    }
    epoch = u.getEpoch();
    notify(() -> listener.onSchedule(u));
  }

  private void failed(int gen, Status status) {
    if (gen != generation || closed) {
      return;
    }
    generation++;
    connected = false;
    cancelStreams();
    long delay = backoffMillis;
    long jitter = (long) (delay * 0.2 * ThreadLocalRandom.current().nextDouble());
    backoffMillis = Math.min(options.maxBackoffMillis(), backoffMillis * 2);
    LOG.warn(
        "host={}: master connection lost ({}: {}); reconnecting in {} ms",
        options.hostId(),
        status.getCode(),
        status.getDescription(),
        delay + jitter);
    scheduler.schedule(this::connect, delay + jitter, TimeUnit.MILLISECONDS);
    // A schedule from a master we cannot reach is stale: the agent schedules locally meanwhile.
    synchronized (flowSchedules) {
      flowSchedules.clear();
    }
    notify(() -> listener.onDisconnected(status, delay + jitter));
  }

  /** Runs a listener callback; its failure is the listener's bug, never the connection's. */
  private void notify(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      LOG.error("host={}: master client listener failed", options.hostId(), e);
    }
  }

  private void cancelStreams() {
    if (reports != null) {
      reports.cancel("reconnecting", null);
      reports = null;
    }
    if (watch != null) {
      watch.cancel("reconnecting", null);
      watch = null;
    }
  }

  /** Closes the session (best effort, bounded by the call timeout) and the channel. */
  @Override
  public void close() throws InterruptedException {
    closed = true;
    String session = sessionId;
    // End the streams before the session, so that no report races its own session's end.
    java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
    try {
      scheduler.execute(
          () -> {
            cancelStreams();
            cancelled.countDown();
          });
      cancelled.await(options.callTimeoutMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // A shared scheduler already shut down: closing the channel below ends the streams.
    }
    if (session != null && connected) {
      try {
        AgentServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(options.callTimeoutMillis(), TimeUnit.MILLISECONDS)
            .closeSession(CloseSessionRequest.newBuilder().setSessionId(session).build());
      } catch (RuntimeException e) {
        LOG.debug(
            "host={}: closing session {} failed: {}", options.hostId(), session, e.toString());
      }
    }
    if (ownScheduler) {
      scheduler.shutdownNow();
    }
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    if (eventLoop != null) {
      eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private static final class LocalFlow {
    final FlowSpec spec;
    long sent;
    long remaining = -1;
    boolean finished;
    boolean dirty;
    boolean specSent;

    LocalFlow(FlowSpec spec) {
      this.spec = spec;
    }
  }
}
