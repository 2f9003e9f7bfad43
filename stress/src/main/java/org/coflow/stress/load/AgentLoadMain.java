package org.coflow.stress.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.core.config.Config;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;

/**
 * The agent of {@code bench load}, in a JVM of its own so that its direct memory is really capped
 * ({@code -XX:MaxDirectMemorySize}: on Java 17 Netty allocates its pooled direct buffers through
 * {@code ByteBuffer.allocateDirect}, which that limit bounds and the JVM's "direct" buffer pool
 * counts). Arguments: host id, the directory it serves, then {@code coflow.courier.*=value}
 * settings. Prints {@code ready <port>} once listening; then answers each {@code stats} line on its
 * standard input with one line of {@code key=value} figures, and stops at {@code quit} or when its
 * input closes.
 */
public final class AgentLoadMain {
  private static final long SAMPLE_MILLIS = 2;

  private AgentLoadMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: AgentLoadMain hostId dir [coflow.courier.KEY=VALUE ...]");
      System.exit(2);
    }
    Map<String, String> raw = new HashMap<>();
    for (int i = 2; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      raw.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    Config config = Config.parse(raw, List.of("coflow."), CourierConfig.REGISTRY);
    AtomicBoolean oom = new AtomicBoolean();
    Thread.setDefaultUncaughtExceptionHandler(
        (t, e) -> {
          if (e instanceof OutOfMemoryError) {
            oom.set(true);
          }
          System.err.println("uncaught in " + t.getName() + ": " + e);
        });
    Peaks peaks = new Peaks();
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    sampler.scheduleAtFixedRate(peaks::sample, 0, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
    try (CourierAgent agent =
        CourierAgent.start(
            AgentOptions.forHost(args[0])
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .config(config)
                .roots(List.of(Path.of(args[1])))
                .clientRegistrations(true))) {
      System.out.println("ready " + agent.address().getPort());
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.equals("quit")) {
          break;
        }
        if (line.equals("stats")) {
          peaks.sample();
          System.out.printf(
              Locale.ROOT,
              "stats connections=%d refused=%d buffered=%d buffered_peak=%d buffered_refused=%d"
                  + " direct=%d direct_peak=%d direct_cap=%d netty_direct_peak=%d heap=%d"
                  + " heap_peak=%d heap_max=%d block_sets=%d oom=%b%n",
              agent.server().connections(),
              agent.server().refused(),
              agent.server().buffered().used(),
              agent.server().buffered().peak(),
              agent.server().buffered().refused(),
              peaks.direct(),
              peaks.directPeak.get(),
              io.netty.util.internal.PlatformDependent.maxDirectMemory(),
              peaks.nettyPeak.get(),
              peaks.memory.getHeapMemoryUsage().getUsed(),
              peaks.heapPeak.get(),
              peaks.memory.getHeapMemoryUsage().getMax(),
              agent.registry().size(),
              oom.get());
          System.out.flush();
        }
      }
    } catch (IOException e) {
      // the parent is gone
    } finally {
      sampler.shutdownNow();
    }
    System.exit(0);
  }

  /** The most direct and heap memory seen in use, sampled every few milliseconds. */
  private static final class Peaks {
    final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    final BufferPoolMXBean pool =
        ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(b -> b.getName().equals("direct"))
            .findFirst()
            .orElseThrow();
    final AtomicLong directPeak = new AtomicLong();
    final AtomicLong nettyPeak = new AtomicLong();
    final AtomicLong heapPeak = new AtomicLong();

    long direct() {
      return pool.getMemoryUsed();
    }

    void sample() {
      directPeak.accumulateAndGet(direct(), Math::max);
      nettyPeak.accumulateAndGet(
          io.netty.buffer.PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory(), Math::max);
      heapPeak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
    }
  }
}
