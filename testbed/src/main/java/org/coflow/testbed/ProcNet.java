package org.coflow.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the kernel of this process's network namespace says about its TCP connections and its
 * interface ({@code /proc/self/net}): the testbed's per-host measurements.
 */
final class ProcNet {
  private ProcNet() {}

  /**
   * Established connections this host opened to another host's data port (one of {@code ports}),
   * loopback excluded, all established at one instant: a host's concurrent data connections.
   *
   * <p>One read of the table is not a snapshot. The kernel lists its connections bucket by bucket
   * while others open and close, so a read can list a connection that closed during the walk next
   * to one that opened during it: four from an agent that never held more than three at once (seen
   * once in four CI runs of the testbed test). The table is therefore read twice, one read after
   * the other, and only the sockets established in both are counted: a socket (same inode) listed
   * by both was established all the time between the two reads, so those counted were all
   * established together at that moment.
   */
  static int dataConnections(Set<Integer> ports) {
    Set<Socket> first = established(readTables(), ports);
    if (first.isEmpty()) {
      return 0;
    }
    return establishedInBoth(first, established(readTables(), ports));
  }

  /** A socket of the table: its local and remote addresses (hex, as listed) and its inode. */
  record Socket(String local, String remote, String inode) {}

  /** How many of the sockets of {@code first} are also in {@code second}. */
  static int establishedInBoth(Set<Socket> first, Set<Socket> second) {
    int n = 0;
    for (Socket socket : first) {
      if (second.contains(socket)) {
        n++;
      }
    }
    return n;
  }

  /** The lines of {@code /proc/self/net/tcp} and {@code tcp6}, those that could be read. */
  private static List<String> readTables() {
    List<String> lines = new ArrayList<>();
    for (String file : new String[] {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
      try {
        lines.addAll(Files.readAllLines(Path.of(file)));
      } catch (IOException e) {
        // tcp6 may be absent
      }
    }
    return lines;
  }

  /**
   * The established sockets of table {@code lines} ({@code /proc/net/tcp} format) whose remote port
   * is one of {@code ports}, loopback excluded.
   */
  static Set<Socket> established(List<String> lines, Set<Integer> ports) {
    Set<Socket> sockets = new HashSet<>();
    for (String line : lines) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 10 || !f[3].equals("01")) {
        continue; // header, or not ESTABLISHED
      }
      int colon = f[2].lastIndexOf(':');
      if (colon < 0) {
        continue;
      }
      String remoteIp = f[2].substring(0, colon);
      int remotePort;
      try {
        remotePort = Integer.parseInt(f[2].substring(colon + 1), 16);
      } catch (NumberFormatException e) {
        continue; // a line we cannot read is not a connection we count
      }
      if (ports.contains(remotePort) && !remoteIp.equals("0100007F")) {
        sockets.add(new Socket(f[1], f[2], f[9]));
      }
    }
    return sockets;
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
