package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.coflow.testbed.Network;

/**
 * Once a second, what the kernel of each testbed host says ({@code /proc/net} inside its namespace:
 * its link's bytes, TCP retransmissions and timeouts, established connections to other hosts), the
 * machine's CPU use ({@code /proc/stat}) and the bytes on the root namespace's link (the driver's
 * and the Spark master's traffic). {@link #summary} turns the samples of a time window into the
 * figures that tell a network-bound run from a CPU-bound one.
 */
final class HostSampler implements AutoCloseable {
  private final Network net;
  private final double bitsPerSecond;
  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stop;

  /** One reading: per host, link bytes in and out, retransmitted segments, timeouts, conns. */
  record Sample(long epochMs, long[][] hosts, long cpuBusy, long cpuTotal, long rootBytes) {}

  /** The figures of a window. */
  record Summary(
      double busiestLinkUtilisation,
      double cpuBusy,
      long retransmissions,
      long timeouts,
      int maxConnectionsPerHost,
      long rootLinkBytes,
      int samples) {}

  HostSampler(Network net, double bitsPerSecond) {
    this.net = net;
    this.bitsPerSecond = bitsPerSecond;
    this.thread = new Thread(this::loop, "spark-testbed-sampler");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void loop() {
    long next = System.nanoTime();
    while (!stop) {
      Sample s = sample();
      synchronized (samples) {
        samples.add(s);
      }
      next += 1_000_000_000L;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private Sample sample() {
    long[][] hosts = new long[net.hosts()][];
    for (int h = 0; h < net.hosts(); h++) {
      hosts[h] = readHost(h);
    }
    long[] cpu = cpu();
    return new Sample(System.currentTimeMillis(), hosts, cpu[0], cpu[1], rootBytes());
  }

  /** rx bytes, tx bytes, retransmitted segments, timeouts, established connections. */
  private long[] readHost(int h) {
    String text;
    try {
      Process p =
          new ProcessBuilder(
                  net.inHost(
                      h,
                      List.of(
                          "cat",
                          "/proc/net/dev",
                          "/proc/net/snmp",
                          "/proc/net/netstat",
                          "/proc/net/tcp",
                          "/proc/net/tcp6")))
              .redirectErrorStream(true)
              .start();
      text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      return new long[5];
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new long[5];
    }
    return parseHost(text);
  }

  /** The figures of {@link #readHost} from the text of its {@code /proc/net} files. */
  static long[] parseHost(String text) {
    long[] out = new long[5];
    Map<String, String[]> headers = new HashMap<>();
    for (String line : text.split("\n")) {
      String t = line.trim();
      if (t.startsWith("eth0:")) {
        String[] f = t.substring(5).trim().split("\\s+");
        out[0] = Long.parseLong(f[0]);
        out[1] = Long.parseLong(f[8]);
      } else if (t.startsWith("Tcp:") || t.startsWith("TcpExt:")) {
        String key = t.substring(0, t.indexOf(':'));
        String[] f = t.split("\\s+");
        String[] header = headers.remove(key);
        if (header == null) {
          headers.put(key, f);
        } else {
          for (int i = 1; i < Math.min(f.length, header.length); i++) {
            if (header[i].equals("RetransSegs")) {
              out[2] = Long.parseLong(f[i]);
            } else if (header[i].equals("TCPTimeouts")) {
              out[3] = Long.parseLong(f[i]);
            }
          }
        }
      } else {
        String[] f = t.split("\\s+");
        // A /proc/net/tcp row: "sl local remote st ...", state 01 = ESTABLISHED.
        if (f.length > 9 && f[0].endsWith(":") && f[3].equals("01") && !loopback(f[2])) {
          out[4]++;
        }
      }
    }
    return out;
  }

  private static boolean loopback(String remote) {
    return remote.startsWith("0100007F")
        || remote.startsWith("00000000000000000000000001000000")
        || remote.startsWith("0000000000000000FFFF00000100007F");
  }

  private static long[] cpu() {
    try {
      String first = Files.readAllLines(Path.of("/proc/stat")).get(0);
      String[] f = first.trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        total += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      return new long[] {total - idle, total};
    } catch (IOException | RuntimeException e) {
      return new long[2];
    }
  }

  private long rootBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/net/dev"))) {
        String t = line.trim();
        if (t.startsWith(net.rootInterface() + ":")) {
          String[] f = t.substring(t.indexOf(':') + 1).trim().split("\\s+");
          return Long.parseLong(f[0]) + Long.parseLong(f[8]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // no such interface: 0
    }
    return 0;
  }

  /**
   * The figures of the samples taken from {@code fromMs} to {@code toMs} (epoch ms); the busiest
   * link's utilisation counts only the seconds in which a job of {@code busy} ({submit, end} in
   * epoch ms) was running: a link is "busy while shuffling", not over the quiet gaps of an open
   * loop.
   */
  Summary summary(long fromMs, long toMs, List<long[]> busy) {
    List<Sample> in = new ArrayList<>();
    synchronized (samples) {
      for (Sample s : samples) {
        if (s.epochMs() >= fromMs - 1000 && s.epochMs() <= toMs + 1000) {
          in.add(s);
        }
      }
    }
    if (in.size() < 2) {
      return new Summary(Double.NaN, Double.NaN, 0, 0, 0, 0, in.size());
    }
    double util = 0;
    int busySeconds = 0;
    int maxConns = 0;
    for (int i = 1; i < in.size(); i++) {
      Sample a = in.get(i - 1);
      Sample b = in.get(i);
      double seconds = Math.max(1e-3, (b.epochMs() - a.epochMs()) / 1e3);
      double busiest = 0;
      for (int h = 0; h < net.hosts(); h++) {
        long bytes = Math.max(b.hosts()[h][0] - a.hosts()[h][0], b.hosts()[h][1] - a.hosts()[h][1]);
        busiest = Math.max(busiest, bytes * 8 / seconds / bitsPerSecond);
        maxConns = (int) Math.max(maxConns, b.hosts()[h][4]);
      }
      long mid = (a.epochMs() + b.epochMs()) / 2;
      if (busy.stream().anyMatch(j -> j[0] <= mid && mid <= j[1])) {
        util += busiest;
        busySeconds++;
      }
    }
    Sample first = in.get(0);
    Sample last = in.get(in.size() - 1);
    long retrans = 0;
    long timeouts = 0;
    for (int h = 0; h < net.hosts(); h++) {
      retrans += last.hosts()[h][2] - first.hosts()[h][2];
      timeouts += last.hosts()[h][3] - first.hosts()[h][3];
    }
    long cpuTotal = last.cpuTotal() - first.cpuTotal();
    return new Summary(
        busySeconds == 0 ? Double.NaN : util / busySeconds,
        cpuTotal == 0 ? Double.NaN : (double) (last.cpuBusy() - first.cpuBusy()) / cpuTotal,
        retrans,
        timeouts,
        maxConns,
        last.rootBytes() - first.rootBytes(),
        in.size());
  }

  @Override
  public void close() {
    stop = true;
    thread.interrupt();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
