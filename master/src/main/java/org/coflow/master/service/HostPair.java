package org.coflow.master.service;

/** A sending and a receiving host, by id: the key of a coflow's clairvoyant size per host pair. */
record HostPair(String src, String dst) {
  @Override
  public String toString() {
    return src + "->" + dst;
  }
}
