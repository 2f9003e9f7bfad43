package org.coflow.coda.bootstrap;

import java.nio.ByteBuffer;

/**
 * What the instrumented JDK classes call: {@code sun.nio.ch.SocketChannelImpl}, {@code
 * sun.nio.ch.FileChannelImpl}, the streams of {@code java.net.Socket} and {@code
 * sun.nio.ch.SelectionKeyImpl}. Advice is inlined into those classes, which are loaded by the
 * bootstrap class loader and see nothing else: that is why this class lives in a jar the agent
 * appends to the bootstrap search path, and why it depends on {@code java.base} only.
 *
 * <p>Three rules keep the host safe:
 *
 * <ul>
 *   <li><b>Nothing throws out of here.</b> Every entry point catches {@link Throwable} and answers
 *       with the neutral value (no limit, nothing to do), so an I/O call behaves exactly as it
 *       would without the agent even when the agent is broken.
 *   <li><b>Re-entry guard.</b> An I/O call made while another instrumented call is running on the
 *       same thread (a {@code transferTo} that falls back to {@code target.write}, the agent's own
 *       work) is neither counted nor paced: {@link #enter()} tells the advice whether it is the
 *       outermost call. Threads the agent owns (its gRPC channel to the master, its timers) are
 *       marked with {@link #markAgentThread()} and never counted or paced.
 *   <li><b>No listener, no work.</b> Until the agent installs its {@link Listener}, and after it
 *       uninstalls it, every call returns at once.
 * </ul>
 *
 * <p>A connection is named by the object that owns it: the {@code SocketChannel} or the {@code
 * java.net.Socket}.
 */
public final class CodaHooks {
  /** The agent's side: implemented in the agent's own class loader. */
  public interface Listener {
    /**
     * Before a write of up to {@code want} bytes on {@code conn}: how many it may write now. {@code
     * Long.MAX_VALUE} means no limit. A blocking caller is made to wait here and always gets at
     * least one byte; a non-blocking caller may get 0 (nothing now).
     */
    long writeBudget(Object conn, long want, boolean blocking);

    /** {@code n} bytes were written on {@code conn} (n &gt; 0). */
    void written(Object conn, long n);

    /** {@code n} bytes were read into {@code buf} at [{@code from}, {@code from + n}). */
    void received(Object conn, ByteBuffer buf, int from, int n);

    /** {@code n} bytes were read into {@code b} at [{@code off}, {@code off + n}). */
    void received(Object conn, byte[] b, int off, int n);

    /** {@code n} bytes were read, not inspected (scattering reads, {@code transferFrom}). */
    void received(Object conn, long n);

    /** The connection was closed. */
    void closed(Object conn);

    /**
     * A selection key of {@code channel} asks for {@code ops}: the ops to really set. The agent
     * strips {@code OP_WRITE} from a paced connection that has no budget left and sets it again
     * (through {@code key}) once the budget is back, so a selector does not spin on a socket that
     * is writable but paced.
     */
    int interestOps(Object channel, Object key, int ops);
  }

  private static volatile Listener listener;

  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  /** Depth given to agent threads: never the outermost call. */
  private static final int AGENT_THREAD = 1 << 20;

  private CodaHooks() {}

  public static void install(Listener l) {
    listener = l;
  }

  public static void uninstall() {
    listener = null;
  }

  /** The current thread belongs to the agent: its I/O is never counted or paced. */
  public static void markAgentThread() {
    DEPTH.get()[0] = AGENT_THREAD;
  }

  /**
   * Enters an instrumented call; true if it is the outermost one on this thread and a listener is
   * installed (then {@link #exit()} must follow). False otherwise (nothing to do, no exit).
   */
  public static boolean enter() {
    try {
      if (listener == null) {
        return false;
      }
      int[] d = DEPTH.get();
      if (d[0] != 0) {
        return false;
      }
      d[0] = 1;
      return true;
    } catch (Throwable t) {
      return false;
    }
  }

  public static void exit() {
    try {
      DEPTH.get()[0] = 0;
    } catch (Throwable t) {
      // nothing to undo
    }
  }

  public static long writeBudget(Object conn, long want, boolean blocking) {
    Listener l = listener;
    if (l == null || want <= 0) {
      return Long.MAX_VALUE;
    }
    try {
      long n = l.writeBudget(conn, want, blocking);
      return n < 0 ? Long.MAX_VALUE : n;
    } catch (Throwable t) {
      return Long.MAX_VALUE;
    }
  }

  public static void written(Object conn, long n) {
    Listener l = listener;
    if (l != null && n > 0) {
      try {
        l.written(conn, n);
      } catch (Throwable t) {
        // counting must never fail the write
      }
    }
  }

  /** After {@code read(ByteBuffer)} returned {@code n}: the bytes end at {@code buf.position()}. */
  public static void received(Object conn, ByteBuffer buf, int n) {
    Listener l = listener;
    if (l != null && n > 0) {
      try {
        l.received(conn, buf, buf.position() - n, n);
      } catch (Throwable t) {
        // inspecting must never fail the read
      }
    }
  }

  public static void received(Object conn, byte[] b, int off, int n) {
    Listener l = listener;
    if (l != null && n > 0) {
      try {
        l.received(conn, b, off, n);
      } catch (Throwable t) {
        // inspecting must never fail the read
      }
    }
  }

  public static void received(Object conn, long n) {
    Listener l = listener;
    if (l != null && n > 0) {
      try {
        l.received(conn, n);
      } catch (Throwable t) {
        // counting must never fail the read
      }
    }
  }

  public static void closed(Object conn) {
    Listener l = listener;
    if (l != null) {
      try {
        l.closed(conn);
      } catch (Throwable t) {
        // closing goes on regardless
      }
    }
  }

  public static int interestOps(Object channel, Object key, int ops) {
    Listener l = listener;
    if (l == null) {
      return ops;
    }
    try {
      return l.interestOps(channel, key, ops);
    } catch (Throwable t) {
      return ops;
    }
  }
}
