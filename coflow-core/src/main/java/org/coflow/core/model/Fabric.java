package org.coflow.core.model;

import java.util.Arrays;

/**
 * The network as the scheduler sees it: a non-blocking "big switch" whose only constraints are the
 * ports' uplink (send) and downlink (receive) capacities, in bytes per second.
 *
 * <p>A port is a host in a live cluster (one Courier agent) or a rack in the Facebook trace. Ports
 * are dense integers {@code 0..size()-1}; the live master maps host ids onto them.
 */
public final class Fabric {
  private final double[] uplink;
  private final double[] downlink;

  /**
   * @param uplink per-port send capacity in bytes/s (copied)
   * @param downlink per-port receive capacity in bytes/s (copied)
   * @throws IllegalArgumentException if the arrays differ in length or a capacity is not positive
   */
  public Fabric(double[] uplink, double[] downlink) {
    if (uplink.length != downlink.length) {
      throw new IllegalArgumentException(
          "uplink and downlink must list the same ports: "
              + uplink.length
              + " vs "
              + downlink.length);
    }
    for (int p = 0; p < uplink.length; p++) {
      requirePositive("uplink", p, uplink[p]);
      requirePositive("downlink", p, downlink[p]);
    }
    this.uplink = uplink.clone();
    this.downlink = downlink.clone();
  }

  /** A fabric of {@code ports} ports, every uplink and downlink at {@code bytesPerSecond}. */
  public static Fabric uniform(int ports, double bytesPerSecond) {
    if (ports <= 0) {
      throw new IllegalArgumentException("a fabric needs at least one port, got " + ports);
    }
    double[] caps = new double[ports];
    Arrays.fill(caps, bytesPerSecond);
    return new Fabric(caps, caps);
  }

  private static void requirePositive(String what, int port, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(
          what
              + " capacity of port "
              + port
              + " must be a positive number of bytes/s, got "
              + value);
    }
  }

  public int size() {
    return uplink.length;
  }

  public double uplink(int port) {
    return uplink[port];
  }

  public double downlink(int port) {
    return downlink[port];
  }
}
