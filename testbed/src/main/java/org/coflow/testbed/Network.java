package org.coflow.testbed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * N hosts on one machine as Linux network namespaces, each joined by a veth pair to a bridge that
 * lives in a namespace of its own (the big switch of the simulator): a host's NIC is the only
 * bottleneck. Both ends of every host's veth are shaped with {@code tc tbf} at the link rate, the
 * host's end for its uplink and the bridge's end for its downlink, with a bounded queue of {@code
 * bufferBytes}: the switch port's buffer, where incast drops packets. A last, unshaped veth joins
 * the bridge to the root namespace, where the master runs.
 *
 * <p>Addresses come from the benchmarking range 198.18.0.0/15 (RFC 2544), a /24 per run that only
 * exists inside this run's namespaces and the root end of its veth. Namespace names carry this
 * process's pid, so concurrent runs' names never collide and {@link #removeStale} can tell a dead
 * run's leftovers (their /24s can: runs whose pids differ by a multiple of 250 share one, so run
 * one testbed at a time). {@link #close} removes everything, and a shutdown hook does the same on
 * an interrupt.
 */
public final class Network implements AutoCloseable {
  private static final String PREFIX = "cftb";

  private final String tag;
  private final int hosts;
  private final int subnet;
  private final Thread hook;
  private final List<String> created = new ArrayList<>();
  private String rootLink;
  private Link link;
  private boolean closed;

  /**
   * What a host's link is, and the TCP its host runs.
   *
   * @param congestion the hosts' TCP congestion control; a namespace may use only what the kernel
   *     allows ({@code /proc/sys/net/ipv4/tcp_allowed_congestion_control})
   * @param rtoMinMillis the hosts' minimum retransmission timeout (a route attribute); 0 keeps the
   *     kernel's (200 ms)
   * @param notsentLowat the hosts' {@code net.ipv4.tcp_notsent_lowat}: the most bytes a socket
   *     holds unsent; 0 keeps the kernel's (no limit). Without a limit a sender's socket buffer
   *     grows to megabytes, and whatever an agent queues behind it on a unified connection (a more
   *     important coflow's chunks) waits for all of it to drain: head-of-line blocking.
   */
  public record Link(
      double bitsPerSecond,
      long bufferBytes,
      String congestion,
      int rtoMinMillis,
      long notsentLowat) {
    public Link {
      if (notsentLowat < 0) {
        throw new IllegalArgumentException("tcp_notsent_lowat " + notsentLowat + ": 0 or more");
      }
      if (!congestion.matches("[a-z0-9_]+")) {
        throw new IllegalArgumentException(
            "congestion control '" + congestion + "': a name like reno");
      }
      if (rtoMinMillis < 0) {
        throw new IllegalArgumentException("minimum RTO " + rtoMinMillis + " ms: 0 or more");
      }
      if (bitsPerSecond < 1e6) {
        throw new IllegalArgumentException(
            "link rate " + bitsPerSecond + " bit/s: use at least 1m (1 Mbit/s)");
      }
      if (bufferBytes < 3000) {
        throw new IllegalArgumentException(
            "buffer of " + bufferBytes + " bytes: use at least 3000 (two full-size packets)");
      }
    }
  }

  private Network(int hosts) {
    long pid = ProcessHandle.current().pid();
    this.tag = Long.toString(pid, 36);
    this.hosts = hosts;
    this.subnet = (int) (pid % 250) + 1;
    this.hook = new Thread(this::close, "testbed-teardown");
  }

  /**
   * Whether this process may create network namespaces: null if it can, else why not (not Linux,
   * not root, no {@code ip} or {@code tc}), for a test to say when it skips.
   */
  public static String unavailableReason() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return "network namespaces need Linux (this is " + System.getProperty("os.name") + ")";
    }
    for (String tool : List.of("ip", "tc")) {
      if (!onPath(tool)) {
        return "'" + tool + "' (iproute2) is not on the PATH";
      }
    }
    String probe = PREFIX + "probe" + Long.toString(ProcessHandle.current().pid(), 36);
    try {
      Shell.run("ip", "netns", "add", probe);
      Shell.run("ip", "netns", "del", probe);
      return null;
    } catch (IOException e) {
      return "cannot create a network namespace (needs root or CAP_SYS_ADMIN): " + e.getMessage();
    }
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (new java.io.File(dir, tool).canExecute()) {
        return true;
      }
    }
    return new java.io.File("/usr/sbin/" + tool).canExecute()
        || new java.io.File("/sbin/" + tool).canExecute();
  }

  /**
   * Builds {@code hosts} namespaces shaped at {@code link}.
   *
   * @throws IOException if a command fails (everything built so far is removed)
   */
  public static Network create(int hosts, Link link) throws IOException {
    if (hosts < 2 || hosts > 60) {
      throw new IllegalArgumentException("hosts " + hosts + ": use 2 to 60");
    }
    removeStale();
    Network n = new Network(hosts);
    Runtime.getRuntime().addShutdownHook(n.hook);
    try {
      n.build(link);
      return n;
    } catch (IOException | RuntimeException e) {
      n.close();
      throw e;
    }
  }

  private void build(Link link) throws IOException {
    this.link = link;
    String bridgeNs = PREFIX + tag + "b";
    addNamespace(bridgeNs);
    Shell.run("ip", "-n", bridgeNs, "link", "add", "br0", "type", "bridge");
    Shell.run("ip", "-n", bridgeNs, "link", "set", "br0", "up");
    Shell.run("ip", "-n", bridgeNs, "link", "set", "lo", "up");
    for (int h = 0; h < hosts; h++) {
      String ns = namespace(h);
      addNamespace(ns);
      String hostEnd = "cf" + tag + "h" + h;
      String bridgeEnd = "cf" + tag + "s" + h;
      // Both ends start in the root namespace under unique names, then move.
      Shell.run("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", bridgeEnd);
      Shell.run("ip", "link", "set", hostEnd, "netns", ns);
      Shell.run("ip", "link", "set", bridgeEnd, "netns", bridgeNs);
      Shell.run("ip", "-n", ns, "link", "set", hostEnd, "name", "eth0");
      Shell.run("ip", "-n", ns, "addr", "add", address(h) + "/24", "dev", "eth0");
      noOffloads(ns, "eth0");
      Shell.run("ip", "-n", ns, "link", "set", "eth0", "up");
      Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
      noOffloads(bridgeNs, bridgeEnd);
      Shell.run("ip", "-n", bridgeNs, "link", "set", bridgeEnd, "master", "br0");
      Shell.run("ip", "-n", bridgeNs, "link", "set", bridgeEnd, "up");
      shape(ns, "eth0", link);
      shape(bridgeNs, bridgeEnd, link);
      tcp(ns, link, h);
    }
    rootLink = "cf" + tag + "r";
    String rootPeer = "cf" + tag + "q";
    Shell.run("ip", "link", "add", rootLink, "type", "veth", "peer", "name", rootPeer);
    Shell.run("ip", "link", "set", rootPeer, "netns", bridgeNs);
    Shell.run("ip", "-n", bridgeNs, "link", "set", rootPeer, "master", "br0");
    Shell.run("ip", "-n", bridgeNs, "link", "set", rootPeer, "up");
    Shell.run("ip", "addr", "add", rootAddress() + "/24", "dev", rootLink);
    Shell.run("ip", "link", "set", rootLink, "up");
  }

  /**
   * One packet per buffer: without it TCP hands the veth 64 KiB segments and the shaper's queue
   * would count a few giant packets instead of the MTU-sized ones a real switch port holds.
   */
  private static void noOffloads(String ns, String dev) throws IOException {
    Shell.run("ip", "-n", ns, "link", "set", "dev", dev, "gso_max_size", "1500");
  }

  /** The host's congestion control and, if set, the minimum RTO on its testbed route. */
  private void tcp(String ns, Link link, int h) throws IOException {
    String allowed =
        Shell.run(
                "ip",
                "netns",
                "exec",
                ns,
                "cat",
                "/proc/sys/net/ipv4/tcp_allowed_congestion_control")
            .trim();
    if (!List.of(allowed.split("\\s+")).contains(link.congestion())) {
      throw new IllegalArgumentException(
          "congestion control '"
              + link.congestion()
              + "' is not allowed in a network namespace on this machine; allowed: "
              + allowed
              + " (/proc/sys/net/ipv4/tcp_allowed_congestion_control)");
    }
    sysctl(ns, "tcp_congestion_control", link.congestion());
    if (link.notsentLowat() > 0) {
      sysctl(ns, "tcp_notsent_lowat", Long.toString(link.notsentLowat()));
    }
    if (link.rtoMinMillis() > 0) {
      Shell.run(
          "ip",
          "-n",
          ns,
          "route",
          "replace",
          "198.18." + subnet + ".0/24",
          "dev",
          "eth0",
          "src",
          address(h),
          "rto_min",
          link.rtoMinMillis() + "ms");
    }
  }

  /** Sets {@code net.ipv4.<name>} inside namespace {@code ns} (a per-namespace setting). */
  private static void sysctl(String ns, String name, String value) throws IOException {
    Shell.run(
        "ip", "netns", "exec", ns, "sh", "-c", "echo " + value + " > /proc/sys/net/ipv4/" + name);
  }

  private static void shape(String ns, String dev, Link link) throws IOException {
    long bits = (long) link.bitsPerSecond();
    // A burst of a few packets (at least what the rate sends in a 1 ms timer tick) keeps tbf exact
    // without letting it act as a second, hidden buffer.
    long burst = Math.max(3028, (long) (link.bitsPerSecond() / 8 / 1000));
    Shell.run(
        "ip",
        "netns",
        "exec",
        ns,
        "tc",
        "qdisc",
        "add",
        "dev",
        dev,
        "root",
        "tbf",
        "rate",
        bits + "bit",
        "burst",
        Long.toString(burst),
        "limit",
        Long.toString(link.bufferBytes()));
  }

  /**
   * Takes the shaping off every host link (both ends), or puts it back: unshaped, hosts exchange
   * bytes as fast as the machine moves them, for traffic whose speed is not measured.
   */
  public void shaped(boolean on) throws IOException {
    String bridgeNs = PREFIX + tag + "b";
    for (int h = 0; h < hosts; h++) {
      String hostEnd = "eth0";
      String bridgeEnd = "cf" + tag + "s" + h;
      if (on) {
        shape(namespace(h), hostEnd, link);
        shape(bridgeNs, bridgeEnd, link);
      } else {
        Shell.run(
            "ip", "netns", "exec", namespace(h), "tc", "qdisc", "del", "dev", hostEnd, "root");
        Shell.run("ip", "netns", "exec", bridgeNs, "tc", "qdisc", "del", "dev", bridgeEnd, "root");
      }
    }
  }

  private void addNamespace(String ns) throws IOException {
    Shell.run("ip", "netns", "add", ns);
    created.add(ns);
  }

  /** The namespace of host {@code h} (0-based). */
  public String namespace(int h) {
    return PREFIX + tag + "h" + h;
  }

  /** Host {@code h}'s address on the testbed. */
  public String address(int h) {
    return "198.18." + subnet + "." + (h + 1);
  }

  /** The root namespace's address on the testbed (where the master listens). */
  public String rootAddress() {
    return "198.18." + subnet + ".254";
  }

  public int hosts() {
    return hosts;
  }

  /** The root namespace's end of the link to the bridge (unshaped: the master's and drivers'). */
  public String rootInterface() {
    return "cf" + tag + "r";
  }

  /** The command that runs {@code argv} inside host {@code h}'s namespace. */
  public List<String> inHost(int h, List<String> argv) {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", namespace(h)));
    cmd.addAll(argv);
    return cmd;
  }

  /** Deletes every namespace and link of this run; safe to call twice and from the hook. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (Thread.currentThread() != hook) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs (or ran) this anyway
      }
    }
    if (rootLink != null) {
      Shell.quietly("ip", "link", "del", rootLink);
    }
    // Deleting a namespace deletes the veth ends in it, and with them their peers.
    for (int i = created.size() - 1; i >= 0; i--) {
      Shell.quietly("ip", "netns", "del", created.get(i));
    }
  }

  /**
   * Removes the namespaces of earlier runs whose process is gone (a run killed by SIGKILL cannot
   * clean up after itself).
   */
  public static void removeStale() {
    String list;
    try {
      list = Shell.run("ip", "netns", "list");
    } catch (IOException e) {
      return;
    }
    for (String line : list.split("\n")) {
      String name = line.trim().split("\\s+")[0];
      if (!name.startsWith(PREFIX) || name.startsWith(PREFIX + "probe")) {
        continue;
      }
      String rest = name.substring(PREFIX.length());
      int cut = Math.max(rest.lastIndexOf('h'), rest.lastIndexOf('b'));
      if (cut <= 0) {
        continue;
      }
      long pid;
      try {
        pid = Long.parseLong(rest.substring(0, cut), 36);
      } catch (NumberFormatException e) {
        continue;
      }
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        continue;
      }
      Shell.quietly("ip", "netns", "del", name);
      Shell.quietly("ip", "link", "del", "cf" + rest.substring(0, cut) + "r");
    }
  }

  /** Runs system commands, failing with what they printed. */
  static final class Shell {
    private Shell() {}

    static String run(String... argv) throws IOException {
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      try {
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IOException(String.join(" ", argv) + ": no answer in 30 s");
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IOException(String.join(" ", argv) + ": interrupted");
      }
      String text = new String(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IOException(
            String.join(" ", argv) + " failed (exit " + p.exitValue() + "): " + text.trim());
      }
      return text;
    }

    static void quietly(String... argv) {
      try {
        run(argv);
      } catch (IOException e) {
        // teardown: a link already gone with its namespace is fine
      }
    }
  }
}
