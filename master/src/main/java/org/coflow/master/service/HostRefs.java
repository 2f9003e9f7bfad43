package org.coflow.master.service;

import java.util.HashMap;
import java.util.Map;

/**
 * The host ids the master holds, each with the number of live references to it (its agent's
 * session, the ends of its sessions' unfinished flows). A host whose last reference goes is freed,
 * so that {@code coflow.master.maxHosts} counts live hosts and expired ones never lock new ones
 * out. Guarded by the {@link MasterState} lock.
 */
final class HostRefs {
  private final Map<String, Integer> refs = new HashMap<>();

  boolean contains(String host) {
    return refs.containsKey(host);
  }

  int size() {
    return refs.size();
  }

  void add(String host) {
    refs.merge(host, 1, Integer::sum);
  }

  void release(String host) {
    Integer n = refs.get(host);
    if (n == null) {
      throw new IllegalStateException("host " + host + " released more often than held");
    }
    if (n == 1) {
      refs.remove(host);
    } else {
      refs.put(host, n - 1);
    }
  }
}
