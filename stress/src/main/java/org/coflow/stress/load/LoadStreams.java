package org.coflow.stress.load;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.transport.TransportContext;
import org.coflow.stress.wire.MapOutput;

/**
 * The good side of {@code bench load}: block streams of clients that prove the secret, spread over
 * a few client connections, every byte compared with what was written. A stream refused with {@code
 * BUSY} is retried after a pause that grows with its attempts, as an engine would; so is one whose
 * connection went away (on a new connection). Refusals are counted by the bound the agent named.
 */
final class LoadStreams {
  private static final long MAX_PAUSE_MILLIS = 500;

  private final TransportContext transport;
  private final InetSocketAddress agent;
  private final String hostId;
  private final MapOutput output;
  private final String blockSet;
  private final int window;
  private final ExecutorService workers;
  private final ScheduledExecutorService timer;
  private final long deadlineNanos;
  private final Slot[] slots;

  private final LongAdder completed = new LongAdder();
  private final LongAdder wrongBytes = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder attempts = new LongAdder();
  private final LongAdder connectRefusals = new LongAdder();
  private final Map<String, LongAdder> busy = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

  /**
   * @param clients how many client connections the streams share
   * @param deadlineNanos after this {@link System#nanoTime}, a refused stream is not retried
   */
  LoadStreams(
      TransportContext transport,
      InetSocketAddress agent,
      String hostId,
      MapOutput output,
      String blockSet,
      int clients,
      ExecutorService workers,
      ScheduledExecutorService timer,
      long deadlineNanos) {
    this.transport = transport;
    this.agent = agent;
    this.hostId = hostId;
    this.output = output;
    this.blockSet = blockSet;
    this.window = output.size(0);
    this.workers = workers;
    this.timer = timer;
    this.deadlineNanos = deadlineNanos;
    this.slots = new Slot[clients];
    for (int i = 0; i < clients; i++) {
      slots[i] = new Slot();
    }
  }

  /** Connects every client now (retrying while the agent is busy). */
  void connect() throws InterruptedException {
    for (Slot s : slots) {
      s.client();
    }
  }

  /** Starts {@code n} streams at once; the future completes when each completed or gave up. */
  CompletableFuture<Void> start(int n) {
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      all.add(done);
      int stream = i;
      workers.execute(() -> attempt(stream, 1, done));
    }
    return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
  }

  private void attempt(int stream, int attempt, CompletableFuture<Void> done) {
    attempts.increment();
    int p = stream % output.partitions();
    MapOutput.Check check = output.check(p);
    CompletableFuture<Long> length;
    try {
      CourierClient client = slots[stream % slots.length].client();
      length =
          client
              .fetch(
                  "load-" + stream % 4,
                  List.of(output.block(p, blockSet, hostId, agent)),
                  check::accept,
                  window)
              .get(0);
    } catch (InterruptedException e) {
      done.complete(null);
      return;
    } catch (RuntimeException e) {
      length = CompletableFuture.failedFuture(e);
    }
    length.whenComplete(
        (n, error) -> {
          if (error == null) {
            (check.matches(n) ? completed : wrongBytes).increment();
            done.complete(null);
            return;
          }
          Throwable cause = error instanceof CompletionException ? error.getCause() : error;
          if (cause instanceof ProtocolException
              && ((ProtocolException) cause).code() == ErrorCode.ERROR_CODE_BUSY) {
            count(busy, reason(cause.getMessage()));
          } else {
            count(
                errors,
                cause instanceof ProtocolException
                    ? ((ProtocolException) cause).code().name().replace("ERROR_CODE_", "")
                    : cause.getClass().getSimpleName());
          }
          if (System.nanoTime() > deadlineNanos) {
            failed.increment();
            done.complete(null);
            return;
          }
          long pause = Math.min(MAX_PAUSE_MILLIS, 10L << Math.min(attempt, 6));
          timer.schedule(
              () -> workers.execute(() -> attempt(stream, attempt + 1, done)),
              pause,
              TimeUnit.MILLISECONDS);
        });
  }

  /** The bound a BUSY refusal names (its configuration key). */
  static String reason(String message) {
    for (String bound :
        new String[] {
          "maxStreamsPerConnection", "maxConnections", "maxHandshaking", "maxBufferedBytes"
        }) {
      if (message != null && message.contains(bound)) {
        return bound;
      }
    }
    return "other";
  }

  private static void count(Map<String, LongAdder> counts, String key) {
    counts.computeIfAbsent(key, k -> new LongAdder()).increment();
  }

  private static Map<String, Long> sums(Map<String, LongAdder> counts) {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  long completed() {
    return completed.sum();
  }

  long wrongBytes() {
    return wrongBytes.sum();
  }

  long failed() {
    return failed.sum();
  }

  long attempts() {
    return attempts.sum();
  }

  /** Client connections the agent refused (BUSY at connect), retried. */
  long connectRefusals() {
    return connectRefusals.sum();
  }

  /** BUSY refusals of streams, by the bound named. */
  Map<String, Long> busy() {
    return sums(busy);
  }

  /** Other failures of attempts, by error code. */
  Map<String, Long> errors() {
    return sums(errors);
  }

  void close() {
    for (Slot s : slots) {
      s.close();
    }
  }

  /** One client connection, replaced by a new one when it went away. */
  private final class Slot {
    private CourierClient client;

    synchronized CourierClient client() throws InterruptedException {
      while (client == null || !client.isOpen()) {
        try {
          client = CourierClient.connect(transport, agent, hostId);
        } catch (ProtocolException e) {
          if (e.code() == ErrorCode.ERROR_CODE_BUSY) {
            connectRefusals.increment();
          } else {
            count(errors, "connect_" + e.code().name().replace("ERROR_CODE_", ""));
          }
          if (System.nanoTime() > deadlineNanos) {
            throw e;
          }
          Thread.sleep(50);
        }
      }
      return client;
    }

    synchronized void close() {
      if (client != null) {
        client.close();
      }
    }
  }
}
