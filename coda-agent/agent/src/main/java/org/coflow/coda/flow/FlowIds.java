package org.coflow.coda.flow;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Flow ids of one JVM: unique within the JVM's session, and, since several JVMs of a host share the
 * host id at the master, drawn from a random base so two JVMs' ids do not collide either.
 */
final class FlowIds {
  private final AtomicLong next =
      new AtomicLong(ThreadLocalRandom.current().nextLong(1L << 22) << 32);

  long next() {
    return next.incrementAndGet();
  }
}
