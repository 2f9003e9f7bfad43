package org.coflow.coda;

import java.nio.ByteBuffer;
import org.coflow.coda.bootstrap.CodaHooks;

/**
 * A hooks listener that fails at everything, installed in place of the agent's. Its own class, so
 * that the test class never names a bootstrap class before the agent is attached (verifying it
 * would load the hooks from the wrong place).
 */
final class BrokenHooks implements CodaHooks.Listener {
  static void install() {
    CodaHooks.install(new BrokenHooks());
  }

  @Override
  public long writeBudget(Object conn, long want, boolean blocking) {
    throw new IllegalStateException("broken");
  }

  @Override
  public void written(Object conn, long n) {
    throw new OutOfMemoryError("broken");
  }

  @Override
  public void received(Object conn, ByteBuffer buf, int from, int n) {
    buf.position(0);
    throw new IllegalStateException("broken");
  }

  @Override
  public void received(Object conn, byte[] b, int off, int n) {
    throw new IllegalStateException("broken");
  }

  @Override
  public void received(Object conn, long n) {
    throw new IllegalStateException("broken");
  }

  @Override
  public void closed(Object conn) {
    throw new IllegalStateException("broken");
  }

  @Override
  public int interestOps(Object channel, Object key, int ops) {
    throw new IllegalStateException("broken");
  }
}
