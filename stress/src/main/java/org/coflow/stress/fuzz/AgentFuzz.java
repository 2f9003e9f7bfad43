package org.coflow.stress.fuzz;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.transport.TransportContext;
import org.coflow.stress.wire.MapOutput;
import org.coflow.stress.wire.RawFrames;

/**
 * A seeded fuzz of one real agent's handshake and frame decoder over loopback ({@code bin/coflow
 * bench fuzz}). The agent runs with a cluster secret, small bounds and one registered Spark map
 * output; each input ({@link FuzzInputs}) goes to a fresh connection, several at once, and what
 * comes back is classified: refused with an ERROR frame (by code), closed without one, or still
 * open when the input stopped mid-frame.
 *
 * <p>Every {@code checkEvery} inputs and at the end the fuzz stops and checks that the agent is
 * whole: all fuzz connections gone from its count, no bytes of incomplete frames left reserved
 * ({@code server().buffered().used()} back to 0), nothing registered by a fuzzed peer, and a good
 * client, proving the secret, still gets the registered blocks byte for byte. Throughout, a fuzzed
 * connection may only ever see CHALLENGE and ERROR frames: a HELLO_ACK, or any frame of an admitted
 * connection, is an authentication bypass.
 */
public final class AgentFuzz {
  static final String HOST = "fuzz-host";
  private static final int PARTITIONS = 8;
  private static final int PARTITION_BYTES = 100 << 10;

  /** How long a connection the input leaves open mid-frame is watched before we reset it. */
  private static final int OPEN_WAIT_MILLIS = 25;

  /** How long the agent has to close a connection we half-closed (or to challenge a HELLO). */
  private static final int CLOSE_WAIT_MILLIS = 3000;

  /** How long the agent has, at a check, to forget closed connections and their bytes. */
  private static final long QUIET_MILLIS = 5000;

  private static final int MAX_REPORTED = 20;

  private final long inputs;
  private final long seed;
  private int workers = 12;
  private long checkEvery = 10_000;

  private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> kinds = new ConcurrentHashMap<>();
  private final LongAdder challenges = new LongAdder();
  private final LongAdder mutated = new LongAdder();
  private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
  private final AtomicLong failureCount = new AtomicLong();

  /**
   * @param inputs how many inputs to play
   * @param seed what they are generated from (input i depends on the seed and i only)
   */
  public AgentFuzz(long inputs, long seed) {
    if (inputs < 1) {
      throw new IllegalArgumentException("--inputs must be at least 1, got " + inputs);
    }
    this.inputs = inputs;
    this.seed = seed;
  }

  /** Connections played at once (default 12). */
  public AgentFuzz workers(int n) {
    this.workers = Math.max(1, n);
    return this;
  }

  /** Inputs between two checks of the agent (default 10,000). */
  public AgentFuzz checkEvery(long k) {
    this.checkEvery = Math.max(1, k);
    return this;
  }

  /**
   * What a run found.
   *
   * @param outcomes inputs by how the agent answered: {@code refused:<ERROR CODE>} (an ERROR
   *     frame), {@code closed} (closed without one), {@code reset} (closed with our bytes unread),
   *     {@code open} (still open when the input stopped mid-frame), {@code not_connected}
   * @param kinds inputs by the family they come from
   * @param havoc inputs mutated byte by byte on top of their family's structure
   * @param challenges inputs the agent challenged (it never admitted one of them)
   * @param peakBuffered the most bytes of incomplete frames the agent held at once
   * @param bufferCap its cap ({@code coflow.courier.maxBufferedBytes})
   * @param agentRefused connections the agent refused at a bound (BUSY)
   * @param failures the first failures, each naming its input; {@code failureCount} counts all
   */
  public record Result(
      long inputs,
      long seed,
      double seconds,
      Map<String, Long> outcomes,
      Map<String, Long> kinds,
      long havoc,
      long challenges,
      long peakBuffered,
      long bufferCap,
      long agentRefused,
      int goodChecks,
      int goodChecksPassed,
      List<String> failures,
      long failureCount) {
    public double inputsPerSecond() {
      return seconds > 0 ? inputs / seconds : 0;
    }

    /** No failure: no bypass, nothing left behind, every good client served. */
    public boolean ok() {
      return failureCount == 0 && goodChecksPassed == goodChecks;
    }
  }

  /** Runs the fuzz with files under {@code dir}; progress lines go to {@code progress} if set. */
  public Result run(Path dir, PrintStream progress) throws Exception {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Credentials cluster = Credentials.of(Credentials.CLUSTER, Secret.of(key, "fuzz secret"));
    Path served = Files.createDirectories(dir.resolve("served"));
    MapOutput output = MapOutput.write(served, PARTITIONS, PARTITION_BYTES, seed);
    NioEventLoopGroup clientGroup = new NioEventLoopGroup(1);
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    long t0 = System.nanoTime();
    int checks = 0;
    int passed = 0;
    try (CourierAgent agent = CourierAgent.start(options(dir, cluster))) {
      TransportContext good = new TransportContext(clientGroup, CourierAgent.MAX_FRAME, cluster);
      String blockSet;
      try (CourierClient registrar = CourierClient.connect(good, agent.address(), HOST)) {
        blockSet = registrar.register(output.registration("fuzz", "0")).get(10, TimeUnit.SECONDS);
      }
      InetSocketAddress at = agent.address();
      FuzzInputs generator =
          new FuzzInputs(seed, HOST, at, blockSet, served.toRealPath().toString(), cluster);
      Exchange exchange = new Exchange(at, cluster.secret(), OPEN_WAIT_MILLIS, CLOSE_WAIT_MILLIS);
      for (long from = 0; from < inputs; from += checkEvery) {
        long to = Math.min(inputs, from + checkEvery);
        AtomicLong next = new AtomicLong(from);
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
          running.add(
              pool.submit(
                  () -> {
                    for (long i = next.getAndIncrement(); i < to; i = next.getAndIncrement()) {
                      play(i, generator.next(i), exchange);
                    }
                  }));
        }
        for (Future<?> f : running) {
          f.get();
        }
        checks++;
        if (check(agent, good, output, blockSet, to, checks)) {
          passed++;
        }
        if (progress != null) {
          double s = (System.nanoTime() - t0) / 1e9;
          progress.printf(
              Locale.ROOT,
              "fuzz: %d/%d inputs, %.0f/s, good-client checks %d/%d, failures %d%n",
              to,
              inputs,
              to / s,
              passed,
              checks,
              failureCount.get());
        }
      }
      return new Result(
          inputs,
          seed,
          (System.nanoTime() - t0) / 1e9,
          counts(outcomes),
          counts(kinds),
          mutated.sum(),
          challenges.sum(),
          agent.server().buffered().peak(),
          agent.server().buffered().cap(),
          agent.server().refused(),
          checks,
          passed,
          List.copyOf(failures),
          failureCount.get());
    } finally {
      pool.shutdownNow();
      clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** The agent under fuzz: a cluster secret, small bounds, short timeouts, one root. */
  private static AgentOptions options(Path dir, Credentials cluster) throws java.io.IOException {
    return AgentOptions.forHost(HOST)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .credentials(cluster)
        .roots(List.of(dir.toRealPath()))
        .clientRegistrations(true)
        .set(CourierConfig.THREADS, 2)
        .set(CourierConfig.MAX_CONNECTIONS, 64)
        .set(CourierConfig.MAX_HANDSHAKING, 16)
        .set(CourierConfig.MAX_HANDSHAKING_PER_ADDRESS, 12)
        .set(CourierConfig.MAX_STREAMS_PER_CONNECTION, 16)
        .set(CourierConfig.MAX_BUFFERED_BYTES, 1L << 20)
        .set(CourierConfig.HANDSHAKE_TIMEOUT, 1000L)
        .set(CourierConfig.IDLE_TIMEOUT, 5000L);
  }

  private void play(long index, FuzzInput input, Exchange exchange) {
    String family = input.kind().replace("+havoc", "");
    kinds.computeIfAbsent(family, k -> new LongAdder()).increment();
    if (input.kind().endsWith("+havoc")) {
      mutated.increment();
    }
    Exchange.Seen seen;
    try {
      seen = exchange.play(input);
    } catch (RuntimeException e) {
      fail(index, input, "the fuzzer failed: " + e);
      return;
    }
    RawFrames.Replies replies = seen.replies();
    if (replies.malformed() != null) {
      fail(index, input, "the agent sent bytes that are not frames: " + replies.malformed());
    }
    Error error = null;
    for (RawFrames.Reply r : replies.frames()) {
      if (r.type() == FrameType.CHALLENGE.id()) {
        challenges.increment();
      } else if (r.type() == FrameType.ERROR.id()) {
        if (error == null) {
          error = r.error();
          if (error == null) {
            fail(index, input, "the agent sent an ERROR frame that does not parse");
          }
        }
      } else {
        fail(
            index,
            input,
            (r.type() == FrameType.HELLO_ACK.id() ? "AUTHENTICATION BYPASS: " : "")
                + "a connection that proved nothing got "
                + r.typeName()
                + (seen.answered() ? " (after answering the challenge with a wrong proof)" : ""));
      }
    }
    String outcome;
    if (error != null) {
      outcome = "refused:" + error.getCode().name().replace("ERROR_CODE_", "");
    } else {
      outcome = seen.end().name().toLowerCase(Locale.ROOT);
    }
    outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
  }

  private void fail(long index, FuzzInput input, String what) {
    if (failureCount.incrementAndGet() <= MAX_REPORTED) {
      failures.add(
          "input #"
              + index
              + " (seed "
              + seed
              + ", "
              + input.kind()
              + "): "
              + what
              + "; sent "
              + input.head());
    }
  }

  /**
   * The agent is whole after {@code done} inputs: no fuzz connection left, no bytes reserved,
   * nothing registered by a fuzzed peer, and a good client served.
   */
  private boolean check(
      CourierAgent agent,
      TransportContext good,
      MapOutput output,
      String blockSet,
      long done,
      int round)
      throws InterruptedException {
    long deadline = System.nanoTime() + QUIET_MILLIS * 1_000_000L;
    while (agent.server().connections() > agent.dataConnections()
        || agent.server().buffered().used() != 0) {
      if (System.nanoTime() > deadline) {
        record(
            "after input #"
                + done
                + ": with every fuzz connection closed the agent still counts "
                + agent.server().connections()
                + " connections (its own data connections: "
                + agent.dataConnections()
                + ") and holds "
                + agent.server().buffered().used()
                + " bytes of incomplete frames");
        break;
      }
      Thread.sleep(2);
    }
    if (agent.registry().size() != 1) {
      record(
          "after input #"
              + done
              + ": the agent has "
              + agent.registry().size()
              + " block sets; only the good client registered one");
    }
    try (CourierClient client = CourierClient.connect(good, agent.address(), HOST)) {
      for (int k = 0; k < 2; k++) {
        int p = (2 * round + k) % output.partitions();
        MapOutput.Check check = output.check(p);
        long length =
            client
                .fetch(
                    "fuzz-check",
                    List.of(output.block(p, blockSet, HOST, agent.address())),
                    check::accept,
                    1 << 20)
                .get(0)
                .get(10, TimeUnit.SECONDS);
        if (!check.matches(length)) {
          record("after input #" + done + ": the good client got wrong bytes for partition " + p);
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      record("after input #" + done + ": the good client was not served: " + e);
      return false;
    }
  }

  private void record(String what) {
    if (failureCount.incrementAndGet() <= MAX_REPORTED) {
      failures.add(what);
    }
  }

  private static Map<String, Long> counts(Map<String, LongAdder> adders) {
    Map<String, Long> out = new TreeMap<>();
    adders.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
