package org.coflow.coda.flow;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.coflow.coda.label.Sniffer;

/**
 * One TCP connection the JVM holds, named by the object that owns it (a {@code SocketChannel} or a
 * {@code Socket}): its two endpoints, what it received, the requests it was sent (for the label)
 * and the flows it sent. Flows follow each other: a write after an idle gap longer than {@code
 * coflow.coda.flowGap} starts a new one. Every field is guarded by the connection itself.
 */
final class Connection {
  final Object owner;
  final InetSocketAddress local;
  final InetSocketAddress remote;
  final Sniffer sniffer = new Sniffer();
  long received;

  /** The flow being sent, or null. */
  OutFlow current;

  /** Flows finished but not yet told to the master. */
  final List<OutFlow> done = new ArrayList<>(1);

  boolean closed;

  /** A selection key whose OP_WRITE the agent dropped and will set again, or null. */
  Object heldKey;

  /** Until when a non-blocking writer of this connection was told to wait (System.nanoTime). */
  long heldUntilNanos;

  Connection(Object owner, InetSocketAddress local, InetSocketAddress remote) {
    this.owner = owner;
    this.local = local;
    this.remote = remote;
  }

  /** The flow the next {@code n} bytes belong to: the current one, or a new one after a gap. */
  OutFlow flowFor(long nowNanos, long gapNanos, FlowIds ids) {
    OutFlow f = current;
    if (f != null && nowNanos - f.activeNanos > gapNanos) {
      finishCurrent();
      f = null;
    }
    if (f == null) {
      f = new OutFlow(ids.next(), System.currentTimeMillis(), nowNanos);
      current = f;
    }
    return f;
  }

  void finishCurrent() {
    if (current != null) {
      current.finished = true;
      done.add(current);
      current = null;
    }
  }

  String label() {
    return sniffer.label();
  }

  @Override
  public String toString() {
    return local + ">" + remote;
  }
}
