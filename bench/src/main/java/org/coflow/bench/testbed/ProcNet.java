package org.coflow.bench.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * What the kernel of this process's network namespace says about its TCP connections and its
 * interface ({@code /proc/self/net}): the testbed's per-host measurements.
 */
final class ProcNet {
  private ProcNet() {}

  /**
   * Established connections this host opened to another host's data port (one of {@code ports}),
   * loopback excluded: a host's concurrent data connections.
   */
  static int dataConnections(Set<Integer> ports) {
    int n = 0;
    for (String file : new String[] {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
      try {
        for (String line : Files.readAllLines(Path.of(file))) {
          String[] f = line.trim().split("\\s+");
          if (f.length < 4 || !f[3].equals("01")) {
            continue; // header, or not ESTABLISHED
          }
          int colon = f[2].lastIndexOf(':');
          if (colon < 0) {
            continue;
          }
          String remoteIp = f[2].substring(0, colon);
          int remotePort = Integer.parseInt(f[2].substring(colon + 1), 16);
          if (ports.contains(remotePort) && !remoteIp.equals("0100007F")) {
            n++;
          }
        }
      } catch (IOException | NumberFormatException e) {
        // tcp6 may be absent; a line we cannot read is not a connection we count
      }
    }
    return n;
  }

  /** Bytes received and sent by {@code dev} ({@code /proc/self/net/dev}); zeros if absent. */
  static long[] interfaceBytes(String dev) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/net/dev"))) {
        String t = line.trim();
        if (t.startsWith(dev + ":")) {
          String[] f = t.substring(dev.length() + 1).trim().split("\\s+");
          return new long[] {Long.parseLong(f[0]), Long.parseLong(f[8])};
        }
      }
    } catch (IOException | RuntimeException e) {
      // no such interface here
    }
    return new long[] {0, 0};
  }
}
