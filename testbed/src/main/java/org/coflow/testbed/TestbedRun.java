package org.coflow.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.CoflowRegistrar;
import org.coflow.api.client.MasterCredentials;
import org.coflow.core.config.Config;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;

/**
 * Replays a workload on a {@link Network} under one {@link Setup}: starts the master (in this
 * process, on the root namespace's testbed address, with a token) and one {@link HostMain} per host
 * namespace, starts each coflow's reducers at its arrival time, and collects completion times, the
 * hosts' TCP counters and their connection counts. The map outputs are written once ({@link
 * MapOutputs}) and shared by every setup of a comparison, so all of them do identical work.
 */
public final class TestbedRun {
  /** Told how a run goes: coflows finished of all, seconds since the first arrival. */
  public interface Progress {
    void update(String label, int finished, int total, double seconds);

    Progress NONE = (l, f, t, s) -> {};
  }

  private final Network net;
  private final Workload workload;
  private final Path data;
  private final long[][] expected;
  private final Path logs;
  private final double capacityBytesPerSecond;
  private final int fetchers;
  private final long timeoutSeconds;
  private final Path secretFile;
  private final Path tokenFile;

  /**
   * @param data where {@link MapOutputs#write} wrote the workload's files; {@code expected} is what
   *     it returned
   * @param logs where the hosts' stderr goes, a file per setup and host
   * @param fetchers the baseline reducers' parallel copies (Hadoop: 5)
   * @param timeoutSeconds how long a run may take after its last arrival before it counts as failed
   */
  public TestbedRun(
      Network net,
      Workload workload,
      Path data,
      long[][] expected,
      Path logs,
      double capacityBytesPerSecond,
      int fetchers,
      long timeoutSeconds)
      throws IOException {
    this.net = net;
    this.workload = workload;
    this.data = data;
    this.expected = expected;
    this.logs = Files.createDirectories(logs);
    this.capacityBytesPerSecond = capacityBytesPerSecond;
    this.fetchers = fetchers;
    this.timeoutSeconds = timeoutSeconds;
    this.secretFile = privateFile(logs.resolve("cluster.secret"));
    this.tokenFile = privateFile(logs.resolve("master.token"));
    for (int h = 0; h < net.hosts(); h++) {
      Files.createDirectories(MapOutputs.hostDir(data, h).resolve("00"));
    }
  }

  /** A fresh random secret in a file only its owner reads (what agents and the master demand). */
  public static Path privateFile(Path file) throws IOException {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, HexFormat.of().formatHex(key));
    return file;
  }

  /** What the run's reducers report, gathered from the hosts' reader threads. */
  private final class Collector {
    final long[] start = new long[workload.coflows().size()];
    final long[] end = new long[workload.coflows().size()];
    final boolean[] failed = new boolean[workload.coflows().size()];
    final int[] left = new int[workload.coflows().size()];
    final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    final List<List<long[]>> samples = new ArrayList<>();
    int corrupt;
    int finished;
    CountDownLatch reducers;

    CountDownLatch warm;

    synchronized void line(int host, String line) {
      try {
        parse(host, line);
      } catch (RuntimeException e) {
        failures.add("host " + host + " printed a line the coordinator cannot read: " + line);
      }
    }

    private void parse(int host, String line) {
      String[] f = line.split(" ", 4);
      if (f.length > 1
          && (f[0].equals("done") || f[0].equals("fail"))
          && Integer.parseInt(f[1]) == MapOutputs.warmupCoflow(workload)) {
        if (f[0].equals("fail")) {
          failures.add("warm-up on host " + host + ": " + (f.length > 3 ? f[3] : ""));
        }
        warm.countDown();
        return;
      }
      switch (f[0]) {
        case "sample" ->
            samples.get(host).add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
        case "done" -> {
          int c = Integer.parseInt(f[1]);
          int r = Integer.parseInt(f[2]);
          String[] rest = f[3].split(" ");
          long at = Long.parseLong(rest[0]);
          long bytes = Long.parseLong(rest[1]);
          long crc = Long.parseLong(rest[2]);
          if (bytes != reducerBytes(c, r) || crc != expected[c][r]) {
            corrupt++;
            failures.add(
                "coflow "
                    + c
                    + " reducer "
                    + r
                    + " on host "
                    + host
                    + ": got "
                    + bytes
                    + " bytes with CRC32 sum "
                    + crc
                    + ", expected "
                    + reducerBytes(c, r)
                    + " / "
                    + expected[c][r]);
          }
          end[c] = Math.max(end[c], at);
          reducerDone(c);
        }
        case "fail" -> {
          failures.add(
              "coflow "
                  + f[1]
                  + " reducer "
                  + f[2]
                  + " on host "
                  + host
                  + ": "
                  + (f.length > 3 ? f[3] : ""));
          int c = Integer.parseInt(f[1]);
          failed[c] = true;
          reducerDone(c);
        }
        default -> failures.add("host " + host + " said: " + line);
      }
    }

    private void reducerDone(int c) {
      if (--left[c] == 0) {
        finished++;
      }
      reducers.countDown();
    }
  }

  private long reducerBytes(int c, int r) {
    Workload.Coflow cf = workload.coflows().get(c);
    long sum = 0;
    for (int h : cf.mapperHosts()) {
      sum += cf.blockBytes(h, r);
    }
    return sum;
  }

  /** Runs {@code setup} once. */
  public RunResult run(Setup setup, Progress progress) throws Exception {
    Collector col = new Collector();
    int n = net.hosts();
    for (int h = 0; h < n; h++) {
      col.samples.add(new ArrayList<>());
    }
    MasterServer master = null;
    CoflowRegistrar registrar = null;
    List<HostProcess> hosts = new ArrayList<>();
    long wall0 = System.nanoTime();
    try {
      List<String> settings = List.of();
      if (setup.hasMaster()) {
        master =
            MasterServer.start(
                Config.defaults()
                    .with(MasterConfig.HOST, net.rootAddress())
                    .with(MasterConfig.PORT, 0)
                    .with(MasterConfig.HTTP_PORT, -1)
                    .with(MasterConfig.POLICY, setup.policy())
                    .with(MasterConfig.TOKEN_FILE, tokenFile.toString())
                    .with(MasterConfig.DEFAULT_CAPACITY, capacityBytesPerSecond),
                null);
      }
      if (!setup.isBaseline()) {
        Map<String, String> s =
            setup.agentSettings(
                master == null ? "" : net.rootAddress() + ":" + master.port(),
                secretFile.toString());
        if (master != null) {
          s.put("coflow.courier.master.tokenFile", tokenFile.toString());
        }
        settings = Setup.asArgs(s);
      }
      List<String> addresses = new ArrayList<>();
      for (int h = 0; h < n; h++) {
        addresses.add(net.address(h));
      }
      String label = setup.label().replaceAll("[^A-Za-z0-9+=.-]", "_");
      for (int h = 0; h < n; h++) {
        List<String> args = new ArrayList<>();
        args.add(Integer.toString(h));
        args.add(String.join(",", addresses));
        args.add(MapOutputs.hostDir(data, h).toString());
        args.add(setup.isBaseline() ? "baseline" : "courier");
        args.add(Integer.toString(fetchers));
        args.addAll(settings);
        int host = h;
        hosts.add(
            HostProcess.start(
                net, h, args, logs.resolve(label + "-h" + h + ".log"), l -> col.line(host, l)));
      }
      for (HostProcess hp : hosts) {
        hp.awaitReady(120);
      }
      warmUp(hosts, col);
      Map<String, long[]> before = counters(hosts);
      int total = 0;
      List<List<String>> commands = new ArrayList<>();
      for (int c = 0; c < workload.coflows().size(); c++) {
        Workload.Coflow cf = workload.coflows().get(c);
        List<String> mine = new ArrayList<>();
        for (int r = 0; r < cf.reducers().size(); r++) {
          StringBuilder spec = new StringBuilder();
          for (int h : cf.mapperHosts()) {
            long b = cf.blockBytes(h, r);
            if (b > 0) {
              spec.append(spec.length() > 0 ? "," : "").append(h).append(':').append(b);
            }
          }
          if (spec.length() > 0) {
            mine.add(cf.reducers().get(r).host() + " fetch " + c + " " + r + " " + spec);
          }
        }
        col.left[c] = mine.size();
        total += mine.size();
        commands.add(mine);
      }
      col.reducers = new CountDownLatch(total);
      registrar =
          master == null
              ? null
              : new CoflowRegistrar(
                  net.rootAddress() + ":" + master.port(),
                  5_000,
                  MasterCredentials.fromFiles(tokenFile.toString(), "", "", ""));
      long t0 = System.nanoTime();
      int coflows = workload.coflows().size();
      for (int c = 0; c < coflows; c++) {
        long due = t0 + workload.coflows().get(c).arrivalMs() * 1_000_000L;
        for (long wait; (wait = due - System.nanoTime()) > 0; ) {
          TimeUnit.NANOSECONDS.sleep(Math.min(wait, 100_000_000L));
          report(progress, setup, col, coflows, t0);
        }
        double weight = workload.coflows().get(c).weight();
        if (registrar != null && weight != 1) {
          registrar.register(HostMain.coflowId(c), "coflow " + c, weight);
        }
        synchronized (col) {
          col.start[c] = System.nanoTime();
          if (col.left[c] == 0) {
            col.finished++;
            col.end[c] = col.start[c];
          }
        }
        for (String cmd : commands.get(c)) {
          int space = cmd.indexOf(' ');
          hosts.get(Integer.parseInt(cmd.substring(0, space))).send(cmd.substring(space + 1));
        }
      }
      long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
      while (!col.reducers.await(200, TimeUnit.MILLISECONDS)) {
        report(progress, setup, col, coflows, t0);
        if (System.nanoTime() > deadline) {
          col.failures.add(
              col.reducers.getCount()
                  + " reducers still running "
                  + timeoutSeconds
                  + " s after the last arrival (--timeout)");
          break;
        }
        for (HostProcess hp : hosts) {
          if (!hp.alive()) {
            throw new IOException("a host exited during the run; its log: " + hp.log());
          }
        }
      }
      report(progress, setup, col, coflows, t0);
      Map<String, long[]> after = counters(hosts);
      return result(setup, col, before, after, t0, (System.nanoTime() - wall0) / 1e9);
    } finally {
      if (registrar != null) {
        registrar.close();
      }
      for (HostProcess hp : hosts) {
        hp.close();
      }
      if (master != null) {
        master.close();
      }
    }
  }

  /** Every host fetches a warm-up block from every other ({@link MapOutputs#warmupCoflow}). */
  private void warmUp(List<HostProcess> hosts, Collector col) throws Exception {
    int w = MapOutputs.warmupCoflow(workload);
    col.warm = new CountDownLatch(hosts.size());
    for (int r = 0; r < hosts.size(); r++) {
      StringBuilder spec = new StringBuilder();
      for (int h = 0; h < hosts.size(); h++) {
        if (h != r) {
          spec.append(spec.length() > 0 ? "," : "")
              .append(h)
              .append(':')
              .append(MapOutputs.WARMUP_BLOCK);
        }
      }
      hosts.get(r).send("fetch " + w + " " + r + " " + spec);
    }
    if (!col.warm.await(120, TimeUnit.SECONDS)) {
      throw new IOException("the hosts' warm-up fetches did not end in 120 s; logs: " + logs);
    }
    if (!col.failures.isEmpty()) {
      throw new IOException("warm-up failed: " + col.failures + "; logs: " + logs);
    }
  }

  private static void report(Progress p, Setup s, Collector col, int total, long t0) {
    int finished;
    synchronized (col) {
      finished = col.finished;
    }
    p.update(s.label(), finished, total, (System.nanoTime() - t0) / 1e9);
  }

  /** Every host's counters, by name, as one array over the hosts. */
  private Map<String, long[]> counters(List<HostProcess> hosts) throws Exception {
    Map<String, long[]> out = new HashMap<>();
    for (int h = 0; h < hosts.size(); h++) {
      String[] f = hosts.get(h).counters().split(" ");
      for (int i = 1; i < f.length; i++) {
        int eq = f[i].indexOf('=');
        out.computeIfAbsent(f[i].substring(0, eq), k -> new long[hosts.size()])[h] =
            Long.parseLong(f[i].substring(eq + 1));
      }
    }
    return out;
  }

  private RunResult result(
      Setup setup,
      Collector col,
      Map<String, long[]> before,
      Map<String, long[]> after,
      long t0,
      double wall) {
    int n = net.hosts();
    Map<String, long[]> delta = new HashMap<>();
    for (Map.Entry<String, long[]> e : after.entrySet()) {
      long[] b = before.getOrDefault(e.getKey(), new long[n]);
      long[] d = new long[n];
      boolean gauge =
          e.getKey().equals("maxConnections")
              || e.getKey().startsWith("budget")
              || e.getKey().startsWith("dp.");
      for (int h = 0; h < n; h++) {
        d[h] = gauge ? e.getValue()[h] : e.getValue()[h] - b[h];
      }
      delta.put(e.getKey(), d);
    }
    double[] cct = new double[workload.coflows().size()];
    for (int c = 0; c < cct.length; c++) {
      cct[c] = col.failed[c] || col.left[c] > 0 ? Double.NaN : (col.end[c] - col.start[c]) / 1e9;
    }
    List<List<long[]>> samples = new ArrayList<>();
    synchronized (col) {
      for (List<long[]> s : col.samples) {
        samples.add(new ArrayList<>(s));
      }
    }
    List<double[]> conns = new ArrayList<>();
    int len = Integer.MAX_VALUE;
    for (List<long[]> s : samples) {
      len = Math.min(len, s.size());
    }
    for (int i = 0; i < len; i++) {
      double[] row = new double[n + 1];
      row[0] = (samples.get(0).get(i)[0] - t0) / 1e9;
      for (int h = 0; h < n; h++) {
        row[h + 1] = samples.get(h).get(i)[1];
      }
      if (row[0] >= 0) {
        conns.add(row);
      }
    }
    int[] maxConns = toInts(delta.get("maxConnections"));
    int[] budgets = toInts(delta.get("budget"));
    return new RunResult(
        setup, cct, wall, delta, conns, maxConns, budgets, col.corrupt, List.copyOf(col.failures));
  }

  private static int[] toInts(long[] v) {
    if (v == null) {
      return new int[0];
    }
    int[] out = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = (int) v[i];
    }
    return out;
  }
}
