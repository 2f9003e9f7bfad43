package org.coflow.coda.flow;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.coflow.coda.bootstrap.CodaHooks;
import org.coflow.coda.pace.TokenBucket;

/**
 * The agent's view of the JVM's TCP connections: what the instrumented I/O calls report lands here
 * ({@link CodaHooks.Listener}), and the reporter reads it ({@link #fresh}, {@link #sweep}). Pacing
 * lives here too: a flow past Aalo's first queue whose rate the master set spends tokens of its
 * {@link TokenBucket}; a blocking write waits for them, a non-blocking one gets only what is there.
 */
public final class Connections implements CodaHooks.Listener {
  /** A held blocking writer wakes at least this often to see a rate lifted or cleared. */
  private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /**
   * The least a paced write is given (or the whole write when smaller): smaller grants would make a
   * writer come back for a few bytes at a time, which is a spin by another name.
   */
  private static final long QUANTUM = 16 * 1024;

  /** How often a flow waiting for its first rate looks again. */
  private static final long COORDINATION_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final Map<Object, Connection> table = new ConcurrentHashMap<>();
  private final FlowIds ids = new FlowIds();
  private final long gapNanos;
  private final long minBytes;
  private final long firstQueue;

  /** Connections whose flow crossed {@code minBytes} unreported: the next quick pass reports it. */
  private final java.util.Queue<Connection> fresh =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  private final long coordinationNanos;

  /** Told (on the writing thread) when a flow crossed the reporting threshold. */
  private volatile Runnable freshListener;

  /** A master session is live: flows past the first queue wait (a little) for their rate. */
  private volatile boolean coordinated;

  private final ScheduledExecutorService timer;

  /**
   * @param gapMillis idle gap that ends a flow
   * @param minBytes bytes a flow sends before it is reported (CODA's pruning)
   * @param firstQueue bytes a flow sends before its pace applies
   * @param coordinationMillis how long a flow past its first queue waits for its first rate while a
   *     master is live
   * @param timer an agent thread that sets dropped OP_WRITE interests again
   */
  public Connections(
      long gapMillis,
      long minBytes,
      long firstQueue,
      long coordinationMillis,
      ScheduledExecutorService timer) {
    this.gapNanos = TimeUnit.MILLISECONDS.toNanos(gapMillis);
    this.minBytes = minBytes;
    this.firstQueue = firstQueue;
    this.coordinationNanos = TimeUnit.MILLISECONDS.toNanos(coordinationMillis);
    this.timer = timer;
  }

  /**
   * {@code listener} runs on the writing thread whenever a flow crosses the reporting threshold: it
   * must only hand work to another thread.
   */
  public void onFresh(Runnable listener) {
    freshListener = listener;
  }

  /** Whether a master session is live (only then do flows wait for their first rate). */
  public void coordinated(boolean live) {
    coordinated = live;
  }

  /** Connections held (for tests and the log). */
  public int size() {
    return table.size();
  }

  @Override
  public long writeBudget(Object owner, long want, boolean blocking) {
    Connection c = table.get(owner);
    if (c == null) {
      return Long.MAX_VALUE;
    }
    while (true) {
      long now = System.nanoTime();
      long wait;
      synchronized (c) {
        wait = holdNanos(c, Math.min(want, QUANTUM), now);
        if (wait == 0) {
          OutFlow f = c.current;
          if (blocking || f == null || f.pace == null) {
            return Long.MAX_VALUE;
          }
          return Math.min(Math.max(f.pace.available(now), QUANTUM), want);
        }
        if (!blocking) {
          c.heldUntilNanos = now + wait;
          return 0;
        }
      }
      LockSupport.parkNanos(wait);
    }
  }

  /**
   * Under {@code c}'s lock: 0 if its flow may write {@code quantum} bytes now, else how long to
   * wait before looking again. A flow held here is active (its writer is waiting), so the idle-gap
   * rule never ends it while the agent itself holds it.
   */
  private long holdNanos(Connection c, long quantum, long now) {
    OutFlow f = c.current;
    if (f == null || f.bytes < firstQueue || now - f.activeNanos > gapNanos) {
      return 0;
    }
    long wait;
    if (f.pace == null) {
      // Aalo's rule: past its first queue a flow waits for coordination, but never long, and
      // not at all without a live master.
      long left = f.firstQueueDoneNanos + coordinationNanos - now;
      if (!coordinated || f.firstQueueDoneNanos == 0 || left <= 0) {
        return 0;
      }
      wait = Math.min(left, COORDINATION_POLL_NANOS);
    } else {
      if (f.pace.available(now) >= quantum) {
        return 0;
      }
      wait = f.pace.nanosUntil(quantum, now);
      if (wait < 0 || wait > MAX_WAIT_NANOS) {
        wait = MAX_WAIT_NANOS;
      }
    }
    f.activeNanos = now;
    return Math.max(wait, 100_000);
  }

  @Override
  public void written(Object owner, long n) {
    Connection c = connection(owner);
    if (c == null) {
      return;
    }
    long now = System.nanoTime();
    synchronized (c) {
      OutFlow f = c.flowFor(now, gapNanos, ids);
      f.add(n, now, c.label());
      if (!f.reported && !f.queued && f.bytes >= minBytes) {
        f.queued = true;
        fresh.add(c);
        Runnable l = freshListener;
        if (l != null) {
          l.run();
        }
      }
      if (f.firstQueueDoneNanos == 0 && f.bytes >= firstQueue) {
        f.firstQueueDoneNanos = now;
      }
      if (f.pace != null) {
        f.pace.spend(n, now);
      }
    }
  }

  @Override
  public void received(Object owner, ByteBuffer buf, int from, int n) {
    Connection c = connection(owner);
    if (c != null) {
      synchronized (c) {
        c.received += n;
        if (c.sniffer.active()) {
          c.sniffer.accept(buf, from, n);
        }
      }
    }
  }

  @Override
  public void received(Object owner, byte[] b, int off, int n) {
    Connection c = connection(owner);
    if (c != null) {
      synchronized (c) {
        c.received += n;
        if (c.sniffer.active()) {
          c.sniffer.accept(b, off, n);
        }
      }
    }
  }

  @Override
  public void received(Object owner, long n) {
    Connection c = connection(owner);
    if (c != null) {
      synchronized (c) {
        c.received += n;
      }
    }
  }

  @Override
  public void closed(Object owner) {
    Connection c = table.get(owner);
    if (c != null) {
      synchronized (c) {
        c.closed = true;
        c.finishCurrent();
      }
    }
  }

  @Override
  public int interestOps(Object channel, Object key, int ops) {
    Connection c = table.get(channel);
    if (c == null) {
      return ops;
    }
    long delay;
    synchronized (c) {
      delay = c.heldUntilNanos - System.nanoTime();
      if (delay <= 0) {
        return ops;
      }
      if (c.heldKey != null) {
        return ops & ~SelectionKey.OP_WRITE;
      }
      c.heldKey = key;
    }
    timer.schedule(() -> release(c), delay, TimeUnit.NANOSECONDS);
    return ops & ~SelectionKey.OP_WRITE;
  }

  /**
   * Sets the OP_WRITE interest the agent dropped, and wakes the selector to see it, once the flow
   * may write; until then looks again later. (Setting it while the flow is still held would make
   * the selector report a writable socket the writer cannot use, over and over: Netty asks for
   * OP_WRITE only when it is not already set.)
   */
  private void release(Connection c) {
    SelectionKey key;
    long wait;
    synchronized (c) {
      wait = holdNanos(c, QUANTUM, System.nanoTime());
      if (wait > 0) {
        c.heldUntilNanos = System.nanoTime() + wait;
        key = null;
      } else {
        key = (SelectionKey) c.heldKey;
        c.heldKey = null;
        c.heldUntilNanos = 0;
      }
    }
    if (wait > 0) {
      timer.schedule(() -> release(c), wait, TimeUnit.NANOSECONDS);
      return;
    }
    if (key != null && key.isValid()) {
      try {
        key.interestOpsOr(SelectionKey.OP_WRITE);
        key.selector().wakeup();
      } catch (RuntimeException e) {
        // the key was cancelled meanwhile: nothing is waiting for it any more
      }
    }
  }

  /**
   * Sets the pace of the flows the master scheduled ({@code rates}: flow id → bytes/s) and clears
   * it from every other flow; an empty map clears all (no master, no pacing).
   */
  public void pace(Map<Long, Double> rates) {
    long now = System.nanoTime();
    for (Connection c : table.values()) {
      synchronized (c) {
        OutFlow f = c.current;
        if (f == null) {
          continue;
        }
        Double r = rates.get(f.id);
        if (r == null) {
          f.pace = null;
        } else if (f.pace == null) {
          f.pace = new TokenBucket(r, now);
        } else if (f.pace.rate() != r) {
          f.pace.setRate(r, now);
        }
      }
    }
  }

  /**
   * The quick pass (every few milliseconds): the flows that crossed the reporting threshold since
   * the last pass, so that the master hears of a new flow at once. Costs nothing without them.
   */
  public List<FlowView> fresh() {
    List<FlowView> out = new ArrayList<>();
    Connection c;
    while ((c = fresh.poll()) != null) {
      synchronized (c) {
        OutFlow f = c.current;
        if (f != null && !f.reported && f.bytes >= minBytes) {
          f.reported = true;
          f.reportedLabel = f.majorityLabel();
          f.reportedBytes = f.bytes;
          out.add(FlowView.of(c, f, true));
        }
      }
    }
    return out;
  }

  /**
   * The full pass (every report interval): ends flows idle past the gap, forgets closed
   * connections, and returns every reported flow that sent more or ended since the last pass
   * (finished ones for the last time), and new ones.
   */
  public List<FlowView> sweep() {
    long now = System.nanoTime();
    List<FlowView> out = new ArrayList<>();
    for (Connection c : table.values()) {
      synchronized (c) {
        if (c.current != null && now - c.current.activeNanos > gapNanos) {
          c.finishCurrent();
        }
        if (!c.closed && !isOpen(c.owner)) {
          c.closed = true;
          c.finishCurrent();
        }
        for (OutFlow f : c.done) {
          if (f.reported) {
            out.add(FlowView.of(c, f, false));
          }
        }
        c.done.clear();
        OutFlow f = c.current;
        if (f != null && f.bytes >= minBytes && f.bytes != f.reportedBytes) {
          boolean first = !f.reported;
          if (first) {
            f.reported = true;
            f.reportedLabel = f.majorityLabel();
          }
          f.reportedBytes = f.bytes;
          out.add(FlowView.of(c, f, first));
        }
        if (c.closed) {
          table.remove(c.owner);
        }
      }
    }
    fresh.clear(); // all reported above
    return out;
  }

  private Connection connection(Object owner) {
    if (owner == null) {
      return null;
    }
    Connection c = table.get(owner);
    if (c != null) {
      return c;
    }
    InetSocketAddress[] ends = endpoints(owner);
    if (ends == null) {
      return null;
    }
    return table.computeIfAbsent(owner, o -> new Connection(o, ends[0], ends[1]));
  }

  /** {local, remote}, or null for what is not a connected TCP socket (Unix sockets, UDP). */
  private static InetSocketAddress[] endpoints(Object owner) {
    SocketAddress l;
    SocketAddress r;
    try {
      if (owner instanceof SocketChannel) {
        SocketChannel ch = (SocketChannel) owner;
        l = ch.getLocalAddress();
        r = ch.getRemoteAddress();
      } else if (owner instanceof Socket) {
        Socket s = (Socket) owner;
        l = s.getLocalSocketAddress();
        r = s.getRemoteSocketAddress();
      } else {
        return null;
      }
    } catch (Exception e) {
      return null;
    }
    if (l instanceof InetSocketAddress && r instanceof InetSocketAddress) {
      return new InetSocketAddress[] {(InetSocketAddress) l, (InetSocketAddress) r};
    }
    return null;
  }

  private static boolean isOpen(Object owner) {
    if (owner instanceof SocketChannel) {
      return ((SocketChannel) owner).isOpen();
    }
    return !(owner instanceof Socket) || !((Socket) owner).isClosed();
  }
}
