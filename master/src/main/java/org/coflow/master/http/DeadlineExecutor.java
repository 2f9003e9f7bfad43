package org.coflow.master.http;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the HTTP server's exchanges, each under a deadline: its request (headers and body) must have
 * arrived within the read timeout of a thread taking it up, and its response must be written within
 * the response timeout after that. An exchange past its deadline has its thread interrupted; the
 * JDK server reads and writes blocking socket channels, which an interrupt closes, so a slow or
 * stalled client loses its connection instead of holding a thread.
 *
 * <p>The JDK server reads a request on the thread it hands the exchange to, so a client that sent
 * part of a request holds that thread until its deadline. Each exchange therefore gets a thread of
 * its own, up to {@code maxRequests} at once (idle ones end after a while), and only computing a
 * response takes one of the few {@code threads} permits ({@link #compute}): silent clients wait on
 * their own threads and never in front of a request that has arrived.
 *
 * <p>The handler marks the end of the request with {@link #requestRead()} (it reads the body
 * itself, with a bounded size). Only this executor's threads are ever interrupted, and never after
 * their exchange ended.
 */
final class DeadlineExecutor implements Executor {
  private static final ThreadLocal<Watch> CURRENT = new ThreadLocal<>();

  private final ThreadPoolExecutor pool;
  private final Semaphore computing;
  private final ScheduledThreadPoolExecutor timer;
  private final long readNanos;
  private final long responseNanos;
  private final AtomicLong cutOff = new AtomicLong();

  DeadlineExecutor(
      int threads, int maxRequests, long readTimeoutMillis, long responseTimeoutMillis) {
    this.pool =
        new ThreadPoolExecutor(
            maxRequests,
            maxRequests,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "coflow-http");
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    this.computing = new Semaphore(threads);
    this.timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "coflow-http-deadlines");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    this.readNanos = TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
    this.responseNanos = TimeUnit.MILLISECONDS.toNanos(responseTimeoutMillis);
  }

  /** Something that computes a response. */
  interface Work<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code work} holding one of the {@code threads} permits, waiting for one within the
   * exchange's deadline.
   *
   * @throws InterruptedIOException if the deadline passed while waiting
   */
  <T> T compute(Work<T> work) throws IOException {
    try {
      computing.acquire();
    } catch (InterruptedException e) {
      throw new InterruptedIOException("no HTTP thread was free before the response deadline");
    }
    try {
      return work.run();
    } finally {
      computing.release();
    }
  }

  @Override
  public void execute(Runnable exchange) {
    pool.execute(() -> run(exchange));
  }

  private void run(Runnable exchange) {
    Watch w = new Watch(Thread.currentThread());
    CURRENT.set(w);
    w.arm(readNanos);
    try {
      exchange.run();
    } finally {
      w.disarm();
      CURRENT.remove();
      // An interrupt that raced the end of the exchange must not reach the next one.
      Thread.interrupted();
    }
  }

  /**
   * Called by a handler on this executor's thread once the whole request is read: from now on the
   * exchange has the response timeout.
   */
  static void requestRead() {
    Watch w = CURRENT.get();
    if (w != null) {
      w.arm(w.owner().responseNanos);
    }
  }

  /** Exchanges cut off at their deadline so far. */
  long cutOff() {
    return cutOff.get();
  }

  void shutdownNow() {
    pool.shutdownNow();
    timer.shutdownNow();
  }

  /** One exchange's deadline. */
  private final class Watch {
    private final Thread thread;
    private ScheduledFuture<?> pending;
    private boolean done;

    Watch(Thread thread) {
      this.thread = thread;
    }

    DeadlineExecutor owner() {
      return DeadlineExecutor.this;
    }

    synchronized void arm(long nanos) {
      if (pending != null) {
        pending.cancel(false);
      }
      pending = timer.schedule(this::expire, nanos, TimeUnit.NANOSECONDS);
    }

    private synchronized void expire() {
      if (!done) {
        cutOff.incrementAndGet();
        thread.interrupt();
      }
    }

    synchronized void disarm() {
      done = true;
      if (pending != null) {
        pending.cancel(false);
      }
    }
  }
}
