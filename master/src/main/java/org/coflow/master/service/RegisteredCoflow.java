package org.coflow.master.service;

import java.util.Map;

/**
 * What a framework told the master about a coflow: name, weight, deadline and the clairvoyant sizes
 * per host pair. Immutable.
 */
final class RegisteredCoflow {
  final String id;
  final String name;
  final double weight;
  final long deadlineMillis;
  final Map<HostPair, Long> pairSizes;
  final long registeredMillis;

  RegisteredCoflow(
      String id,
      String name,
      double weight,
      long deadlineMillis,
      Map<HostPair, Long> pairSizes,
      long registeredMillis) {
    this.id = id;
    this.name = name;
    this.weight = weight;
    this.deadlineMillis = deadlineMillis;
    this.pairSizes = pairSizes;
    this.registeredMillis = registeredMillis;
  }

  /**
   * What a registration counts against {@code coflow.master.maxBytes}: two bytes a character of its
   * id, its name and the host ids of its pairs, and 16 a pair for its size.
   */
  static long footprint(String id, String name, Map<HostPair, Long> pairSizes) {
    long bytes = 2L * (id.length() + name.length());
    for (HostPair p : pairSizes.keySet()) {
      bytes += 2L * (p.src().length() + p.dst().length()) + 16;
    }
    return bytes;
  }
}
