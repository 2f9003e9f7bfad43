package org.coflow.coda;

import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's log: a line on the JVM's standard error, prefixed {@code [coda-agent]}, at most once
 * per kind of event (an unreachable master, a type that could not be instrumented, ...). The agent
 * lives inside someone else's JVM: it does not configure, or write through, the host's logging.
 */
public final class CodaLog {
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  private CodaLog() {}

  /** Logs {@code message} unless a message of this {@code kind} was logged before. */
  public static void once(String kind, String message) {
    if (SAID.add(kind)) {
      info(message);
    }
  }

  /** Forgets a kind, so that it is logged again next time (a master that came back and left). */
  public static void reset(String kind) {
    SAID.remove(kind);
  }

  public static void info(String message) {
    System.err.println(Instant.now() + " [coda-agent] " + message);
  }
}
