package org.coflow.courier.fetch;

import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RemoteBlock;

/**
 * An agent's fetching side: one unified connection per remote host, shared by every local client
 * and coflow, opened on first use and reopened after it closes. Thread-safe.
 */
public final class FetchService implements AutoCloseable {
  private final EventLoopGroup group;
  private final String hostId;
  private final long window;
  private final int maxFrame;
  private final Map<String, CompletableFuture<PeerConnection>> peers = new ConcurrentHashMap<>();
  private final Map<String, Integer> priorities = new ConcurrentHashMap<>();
  private final FlowTracker flows;

  public FetchService(EventLoopGroup group, String hostId, long window, int maxFrame) {
    this.group = group;
    this.hostId = hostId;
    this.window = window;
    this.maxFrame = maxFrame;
    this.flows = new FlowTracker(hostId);
  }

  /** The flows this service fetches, for the master. */
  public FlowTracker flows() {
    return flows;
  }

  /** A stream being fetched: where to grant credit or cancel it. */
  public static final class Handle {
    private final PeerConnection peer;
    private final long stream;

    Handle(PeerConnection peer, long stream) {
      this.peer = peer;
      this.stream = stream;
    }

    public void grant(long bytes) {
      peer.grant(stream, bytes);
    }

    public void cancel() {
      peer.cancel(stream);
    }
  }

  /**
   * Fetches one remote block into {@code sink}; {@code started} receives the stream's handle once
   * it is requested (never, if the remote agent cannot be reached: the sink fails instead).
   *
   * @param streamWindow bytes in flight before credit; 0 for the agent's default
   */
  public void fetch(String coflowId, RemoteBlock block, BlockSink sink, long streamWindow,
      boolean autoCredit, Consumer<Handle> started) {
    InetSocketAddress address;
    try {
      address = parse(block.getAgentAddress());
    } catch (IllegalArgumentException e) {
      sink.fail(ErrorCode.ERROR_CODE_INVALID, "block " + block.getBlock().getBlock() + ": " + e.getMessage());
      return;
    }
    long w = streamWindow > 0 ? streamWindow : window;
    flows.requested(coflowId, block);
    BlockSink counted = new Tracked(sink, coflowId, block.getHostId(), block.getSize() < 0);
    peer(block.getHostId(), address).whenComplete((peer, error) -> {
      if (error != null) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
        counted.fail(ErrorCode.ERROR_CODE_UNREACHABLE, cause.getMessage());
        return;
      }
      int priority = priorities.getOrDefault(coflowId, 0);
      started.accept(new Handle(peer, peer.fetch(coflowId, block.getBlock(), counted, w, autoCredit, priority)));
    });
  }

  private CompletableFuture<PeerConnection> peer(String remoteHost, InetSocketAddress address) {
    return peers.compute(remoteHost, (h, existing) -> {
      if (existing != null && (!existing.isDone() || (!existing.isCompletedExceptionally()
          && existing.join().isOpen()))) {
        return existing;
      }
      return PeerConnection.open(group, hostId, remoteHost, address, 0, window, maxFrame);
    });
  }

  /** A coflow's priority (lower first) for its new requests and, from now on, its open streams. */
  public void setPriority(String coflowId, int priority) {
    Integer old = priorities.put(coflowId, priority);
    if (old != null && old == priority) {
      return;
    }
    for (CompletableFuture<PeerConnection> f : peers.values()) {
      f.thenAccept(peer -> peer.prioritize(coflowId, priority));
    }
  }

  /** Open data connections to other hosts' agents. */
  public int connections() {
    int n = 0;
    for (CompletableFuture<PeerConnection> f : peers.values()) {
      if (f.isDone() && !f.isCompletedExceptionally() && f.join().isOpen()) {
        n++;
      }
    }
    return n;
  }

  /** Counts a block's bytes into its flow on the way to the real sink. */
  private final class Tracked implements BlockSink {
    private final BlockSink sink;
    private final String coflow;
    private final String src;
    private final boolean sizeUnknown;

    Tracked(BlockSink sink, String coflow, String src, boolean sizeUnknown) {
      this.sink = sink;
      this.coflow = coflow;
      this.src = src;
      this.sizeUnknown = sizeUnknown;
    }

    @Override
    public void start(long length, long rawLength) throws java.io.IOException {
      if (sizeUnknown) {
        flows.learned(coflow, src, length);
      }
      sink.start(length, rawLength);
    }

    @Override
    public void write(io.netty.buffer.ByteBuf data) throws java.io.IOException {
      flows.received(coflow, src, data.readableBytes());
      sink.write(data);
    }

    @Override
    public void complete() throws java.io.IOException {
      flows.ended(coflow, src);
      sink.complete();
    }

    @Override
    public void fail(ErrorCode code, String message) {
      flows.ended(coflow, src);
      sink.fail(code, message);
    }
  }

  static InetSocketAddress parse(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException("agent address '" + address + "' is not host:port");
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("agent address '" + address + "' has no numeric port");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("agent address '" + address + "': port out of range");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new InetSocketAddress(host, port);
  }

  @Override
  public void close() {
    for (CompletableFuture<PeerConnection> f : peers.values()) {
      f.thenAccept(PeerConnection::close);
    }
    peers.clear();
  }
}
