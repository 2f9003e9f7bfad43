package org.coflow.courier.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Where the agents serving an engine's remote data are: each looked up once (how is the engine's
 * business: Spark asks its driver, MapReduce derives it from the map host or asks the master) and
 * cached. One eviction rule for every engine: a fetch through an agent that failed, or a lookup
 * that found none, evicts the entry and suspends the key for {@code suspendMillis}, during which
 * {@link #get} answers null and the engine reads that data its own way. Thread-safe.
 *
 * @param <K> what the engine calls the source of remote data (an executor id, a map host)
 */
public final class RemoteAgents<K> {
  /** Finds the agent of a key, or null if it has none. */
  public interface Resolver<K> {
    RemoteAgent resolve(K key) throws Exception;
  }

  private final Resolver<K> resolver;
  private final long suspendMillis;
  private final LongSupplier clock;
  private final Map<K, RemoteAgent> agents = new ConcurrentHashMap<>();
  private final Map<K, Long> suspendedUntil = new ConcurrentHashMap<>();

  /**
   * @param suspendMillis how long a key whose agent failed or was not found is answered null (0:
   *     looked up again on the next call)
   */
  public RemoteAgents(Resolver<K> resolver, long suspendMillis) {
    this(resolver, suspendMillis, System::currentTimeMillis);
  }

  RemoteAgents(Resolver<K> resolver, long suspendMillis, LongSupplier clock) {
    this.resolver = resolver;
    this.suspendMillis = suspendMillis;
    this.clock = clock;
  }

  /**
   * The agent of {@code key}, or null while it is suspended or when the resolver finds none (which
   * suspends it).
   *
   * @throws Exception what the resolver threw (nothing is cached then)
   */
  public RemoteAgent get(K key) throws Exception {
    Long until = suspendedUntil.get(key);
    if (until != null) {
      if (clock.getAsLong() < until) {
        return null;
      }
      suspendedUntil.remove(key, until);
    }
    RemoteAgent a = agents.get(key);
    if (a != null) {
      return a;
    }
    a = resolver.resolve(key);
    if (a == null) {
      failed(key);
      return null;
    }
    agents.put(key, a);
    return a;
  }

  /**
   * A fetch through {@code key}'s agent failed (or none was found): evict it and suspend the key.
   */
  public void failed(K key) {
    agents.remove(key);
    if (suspendMillis > 0) {
      suspendedUntil.put(key, clock.getAsLong() + suspendMillis);
    }
  }
}
