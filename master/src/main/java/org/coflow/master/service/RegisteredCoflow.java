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
}
