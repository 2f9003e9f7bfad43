package org.coflow.courier.adapt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel's TCP counters of this process's network namespace ({@code /proc/net/snmp} and {@code
 * /proc/net/netstat}, Linux only): what a host sees of loss on its connections. Read on demand;
 * each read is a snapshot, and a delta of two snapshots is what happened in between.
 */
public final class TcpCounters {
  private final Path snmp;
  private final Path netstat;

  /** The counters of this process's namespace. */
  public static TcpCounters local() {
    return new TcpCounters(Path.of("/proc/self/net/snmp"), Path.of("/proc/self/net/netstat"));
  }

  TcpCounters(Path snmp, Path netstat) {
    this.snmp = snmp;
    this.netstat = netstat;
  }

  /** Whether the counters can be read here (Linux with /proc). */
  public boolean available() {
    return Files.isReadable(snmp) && Files.isReadable(netstat);
  }

  /**
   * One snapshot: {@code Tcp} counters of {@code snmp} ({@code RetransSegs}, {@code InSegs}, {@code
   * OutSegs}, ...) and {@code TcpExt} counters of {@code netstat} ({@code TCPTimeouts}, {@code
   * TCPOFOQueue}, ...) by their kernel names.
   *
   * @throws IOException if they cannot be read
   */
  public Map<String, Long> read() throws IOException {
    Map<String, Long> out = new HashMap<>();
    parse(Files.readAllLines(snmp), "Tcp:", out);
    parse(Files.readAllLines(netstat), "TcpExt:", out);
    return out;
  }

  /** The kernel's format: a line of names, then a line of values, both starting with the tag. */
  static void parse(List<String> lines, String tag, Map<String, Long> out) {
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (!lines.get(i).startsWith(tag) || !lines.get(i + 1).startsWith(tag)) {
        continue;
      }
      String[] names = lines.get(i).trim().split("\\s+");
      String[] values = lines.get(i + 1).trim().split("\\s+");
      for (int k = 1; k < Math.min(names.length, values.length); k++) {
        try {
          out.put(names[k], Long.parseLong(values[k]));
        } catch (NumberFormatException e) {
          // a field that is not a counter (none today): not ours to read
        }
      }
      return;
    }
  }
}
