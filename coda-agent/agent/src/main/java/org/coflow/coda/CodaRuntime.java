package org.coflow.coda;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.coflow.coda.bootstrap.CodaHooks;
import org.coflow.coda.flow.Connections;
import org.coflow.coda.instrument.Instrumentations;
import org.coflow.coda.report.Reporter;
import org.coflow.core.config.Config;

/**
 * The running agent: the connection table the hooks feed, the instrumentation, and the reporter.
 * Loaded only once the bootstrap part is on the bootstrap class path ({@link CodaAgent}).
 */
final class CodaRuntime {
  /** The full pass (bytes, ends) when no report interval is configured: the master's usual Δ. */
  private static final long REPORT_MILLIS = 100;

  private static boolean instrumented;
  private static CodaRuntime current;

  private final ScheduledExecutorService timer;
  private final Reporter reporter;

  /**
   * The agent's libraries (gRPC, Netty) log through java.util.logging under this relocated name;
   * their lines stay out of the host's handlers (the agent says what matters through {@link
   * CodaLog}). Held here: java.util.logging keeps loggers weakly.
   */
  private static final java.util.logging.Logger LIBRARIES = quiet("org.coflow.coda.shaded");

  private static java.util.logging.Logger quiet(String name) {
    java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
    l.setUseParentHandlers(false);
    return l;
  }

  private CodaRuntime(Config c) {
    ThreadFactory threads = agentThreads("coda-agent");
    this.timer = Executors.newSingleThreadScheduledExecutor(threads);
    Connections connections =
        new Connections(
            c.get(CodaConfig.FLOW_GAP_MS),
            c.get(CodaConfig.MIN_FLOW_BYTES),
            c.get(CodaConfig.FIRST_QUEUE_BYTES),
            c.get(CodaConfig.PACE) ? c.get(CodaConfig.COORDINATION_WAIT_MS) : 0,
            timer);
    this.reporter = new Reporter(c, connections, timer, agentThreads("coda-agent-grpc"));
    CodaHooks.install(connections);
  }

  static synchronized void start(Config c, Instrumentation inst) throws Exception {
    if (current != null) {
      current.stop();
      current = null;
    }
    CodaRuntime r = new CodaRuntime(c);
    if (!instrumented) {
      Instrumentations.install(inst, true);
      inst.addTransformer(new EpollWatch());
      instrumented = true;
    }
    long interval = c.get(CodaConfig.REPORT_INTERVAL_MS);
    r.reporter.start(interval > 0 ? interval : REPORT_MILLIS);
    current = r;
    Runtime.getRuntime().addShutdownHook(agentThreads("coda-agent-exit").newThread(r::stop));
    CodaLog.info(
        "started: host "
            + r.reporter.hostId()
            + ", master "
            + (c.get(CodaConfig.MASTER).isEmpty() ? "none (count only)" : c.get(CodaConfig.MASTER))
            + ", mode "
            + c.get(CodaConfig.MODE));
  }

  private synchronized void stop() {
    CodaHooks.uninstall();
    try {
      reporter.close();
    } catch (Exception e) {
      // leaving anyway
    }
    timer.shutdownNow();
  }

  /** Daemon threads whose I/O the hooks never count or pace. */
  static ThreadFactory agentThreads(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t =
          new Thread(
              () -> {
                CodaHooks.markAgentThread();
                r.run();
              },
              name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Netty's native epoll transport moves bytes in JNI code no bytecode instrumentation sees: say so
   * once when a JVM loads it (Spark and Hadoop use NIO unless told otherwise).
   */
  private static final class EpollWatch implements ClassFileTransformer {
    @Override
    public byte[] transform(
        ClassLoader loader,
        String className,
        Class<?> redefined,
        ProtectionDomain domain,
        byte[] bytes) {
      if (className != null && className.endsWith("/channel/epoll/EpollSocketChannel")) {
        CodaLog.once(
            "epoll",
            "Netty's native epoll transport is in use ("
                + className.replace('/', '.')
                + "): its connections are invisible to the coda-agent; use NIO "
                + "(Spark: spark.shuffle.io.mode=NIO, spark.rpc.io.mode=NIO)");
      }
      return null;
    }
  }
}
