package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.coflow.bench.tpcds.EventLogFetchWait;
import org.coflow.testbed.Network;
import org.coflow.testbed.TestbedRun;

/**
 * Real Spark applications on a testbed's hosts, once per setup: a standalone cluster across the
 * host namespaces ({@link SparkCluster}), the tenants' applications submitted at once from the root
 * namespace (drivers there), and per job its time and shuffle reads from each application's event
 * log, next to what the hosts' kernels say ({@link HostSampler}) and what the agents and executors
 * counted.
 */
public final class SparkTestbed {
  private SparkTestbed() {}

  /**
   * A way to run the same applications.
   *
   * <ul>
   *   <li>{@code stock}: Spark alone, its own Netty fetch, no jar of ours;
   *   <li>{@code stock-ess}: the same with each worker's external shuffle service;
   *   <li>{@code embedded}: the plugin, each executor with its own agent, no master;
   *   <li>{@code agents}: the plugin, one agent per host shared by every application, no master;
   *   <li>a policy name: those host agents and the master ({@code bin/coflow master} in the root
   *       namespace) running it.
   * </ul>
   */
  public record Setup(String name) {
    public static final List<String> BASES = List.of("stock", "stock-ess", "embedded", "agents");

    public Setup {
      if (!name.matches("[a-z][a-z0-9-]*")) {
        throw new IllegalArgumentException(
            "setup '" + name + "': use " + String.join(", ", BASES) + " or a policy's name");
      }
    }

    public boolean plugin() {
      return !name.startsWith("stock");
    }

    boolean ess() {
      return name.equals("stock-ess");
    }

    boolean hostAgents() {
      return plugin() && !name.equals("embedded");
    }

    /** The master's policy (any name but the bases'), or null without a master. */
    public String policy() {
      return BASES.contains(name) ? null : name;
    }
  }

  /**
   * What to run.
   *
   * @param launcher the launcher's command line up to its subcommand ({@code bin/coflow}), for the
   *     host agents and the master
   * @param executorCores each executor's task slots (tasks that wait on fetches use no CPU, so a
   *     worker offers more slots than the machine has cores)
   * @param executorMemoryMb each executor's heap
   * @param sparkConf more settings (key=value) for every application
   * @param warmupBytes shuffle bytes of the warm-up application each setup's cluster runs before
   *     the measured ones (0: none), so that its long-lived daemons are warm as in a running
   *     cluster
   */
  public record Plan(
      int hosts,
      Network.Link link,
      String spark,
      Tenants tenants,
      List<Setup> setups,
      int repeat,
      int executorCores,
      int executorMemoryMb,
      List<String> sparkConf,
      long warmupBytes,
      int timeoutMinutes,
      List<String> launcher,
      Path out) {}

  /**
   * One job of one run: its submission (epoch ms) and time from the event log, its tasks' summed
   * fetch wait, garbage collection and deserialisation, its result.
   */
  public record Job(
      String id,
      int app,
      long bytes,
      long submitMs,
      double seconds,
      double fetchWaitSeconds,
      double gcSeconds,
      double deserializeSeconds,
      String digest,
      String failure) {
    /** When it ended (epoch ms; 0 if the event log did not say when it started). */
    public long endMs() {
      return submitMs == 0 ? 0 : submitMs + Math.round(seconds * 1e3);
    }

    static Job of(String id, int app, long bytes, double seconds, String digest) {
      return new Job(id, app, bytes, 0, seconds, 0, 0, 0, digest, null);
    }

    static Job failed(String id, int app, long bytes, String why) {
      return new Job(id, app, bytes, 0, Double.NaN, 0, 0, 0, null, why);
    }
  }

  /**
   * One setup's run in one round.
   *
   * @param executors the plugin's metrics summed over every application's executors
   * @param agents the host agents' figures as they stopped, per host
   * @param problems what went wrong (an application that failed, a missing result)
   */
  public record Run(
      Setup setup,
      int round,
      List<Job> jobs,
      int submitted,
      HostSampler.Summary net,
      Map<String, Long> executors,
      List<Map<String, String>> agents,
      List<String> problems) {}

  /** What a run reports while it goes on. */
  public interface Progress {
    void update(String setup, int round, String what);
  }

  /** Runs every setup {@code repeat} times, in rounds; the runs in order. */
  public static List<Run> run(Plan plan, Submitter submit, Progress progress)
      throws IOException, InterruptedException {
    Files.createDirectories(plan.out());
    List<String> classes = new ArrayList<>(plan.tenants().appClasses());
    classes.addAll(TraceTenants.APP_CLASSES);
    Path appJar = appJar(plan.out().resolve("app.jar"), classes);
    List<Run> runs = new ArrayList<>();
    try (Network net = Network.create(plan.hosts(), plan.link())) {
      for (int round = 1; round <= plan.repeat(); round++) {
        for (Setup s : plan.setups()) {
          progress.update(s.name(), round, "starting the cluster");
          runs.add(runOnce(plan, net, submit, appJar, s, round, progress));
        }
      }
    }
    return runs;
  }

  private static Run runOnce(
      Plan plan,
      Network net,
      Submitter submit,
      Path appJar,
      Setup setup,
      int round,
      Progress progress)
      throws IOException, InterruptedException {
    Path dir = plan.out().resolve("round-" + round + "/" + setup.name());
    deleteTree(dir);
    Files.createDirectories(dir);
    Tenants t = plan.tenants();
    int apps = t.apps();
    String workerOpts =
        setup.ess() ? "-Dspark.shuffle.service.enabled=true -Dspark.shuffle.service.port=7337" : "";
    List<String> problems = new ArrayList<>();
    List<Map<String, String>> agentFigures = List.of();
    List<Process> running = new ArrayList<>();
    HostSampler sampler = new HostSampler(net, plan.link().bitsPerSecond());
    Process master = null;
    try (SparkCluster cluster =
        SparkCluster.start(
            net,
            submit.sparkHome(),
            dir.resolve("cluster"),
            apps * plan.executorCores(),
            apps * plan.executorMemoryMb(),
            workerOpts,
            180)) {
      List<String> conf = new ArrayList<>();
      conf.add("spark.driver.host=" + net.rootAddress());
      conf.add("spark.executor.memory=" + plan.executorMemoryMb() + "m");
      conf.add("spark.executor.cores=" + plan.executorCores());
      conf.add("spark.cores.max=" + net.hosts() * plan.executorCores());
      conf.add("spark.scheduler.mode=FAIR");
      conf.addAll(t.conf());
      conf.addAll(plan.sparkConf());
      if (setup.ess()) {
        conf.add("spark.shuffle.service.enabled=true");
      }
      if (setup.hostAgents()) {
        Path secret = TestbedRun.privateFile(dir.resolve("cluster.secret"));
        List<String> extra = new ArrayList<>();
        if (setup.policy() != null) {
          Path token = TestbedRun.privateFile(dir.resolve("master.token"));
          master = startMaster(plan, net, setup.policy(), token, dir);
          String at = net.rootAddress() + ":" + masterPort(dir, master);
          Path agentConf = dir.resolve("agent.properties");
          Files.writeString(agentConf, "coflow.courier.master.tokenFile=" + token + "\n");
          extra.addAll(List.of("--master", at, "--config", agentConf.toString()));
          conf.add("spark.shuffle.courier.master=" + at);
          conf.add("spark.shuffle.courier.master.tokenFile=" + token);
        }
        progress.update(setup.name(), round, "starting the host agents");
        cluster.startAgents(plan.launcher(), secret, extra, 60);
        conf.add("spark.shuffle.courier.agent=" + SparkCluster.AGENT_PORT);
        conf.add("spark.shuffle.courier.secretFile=" + secret);
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(plan.timeoutMinutes());
      if (plan.warmupBytes() > 0) {
        progress.update(setup.name(), round, "warming up the daemons");
        String failed = warmUp(plan, net, submit, appJar, cluster, conf, setup, dir, deadline);
        if (failed != null) {
          problems.add(failed);
        }
      }
      Path go = dir.resolve("go");
      List<Path> outs = new ArrayList<>();
      sampler.start();
      progress.update(setup.name(), round, "submitting " + apps + " applications");
      for (int a = 0; a < apps; a++) {
        Path out = dir.resolve("app-" + a + ".out");
        outs.add(out);
        List<String> cmd = submit.command(cluster.masterUrl(), setup.plugin());
        for (String kv : conf) {
          cmd.addAll(List.of("--conf", kv));
        }
        cmd.addAll(EventLogFetchWait.sparkConf(dir.resolve("events-" + a)));
        if (setup.plugin()) {
          String sink = "spark.metrics.conf.executor.sink.csv.";
          Path metrics = Files.createDirectories(dir.resolve("metrics-" + a));
          cmd.addAll(
              List.of(
                  "--conf", sink + "class=org.apache.spark.metrics.sink.CsvSink",
                  "--conf", sink + "period=10",
                  "--conf", sink + "unit=seconds",
                  "--conf", sink + "directory=" + metrics));
        }
        cmd.addAll(
            List.of(
                "--name",
                "tenant-" + a,
                "--driver-memory",
                t.driverMemoryMb() + "m",
                "--class",
                t.mainClass(),
                appJar.toString()));
        cmd.addAll(t.args(a, dir, out, go, net.hosts()));
        running.add(submit.start(cmd, dir.resolve("app-" + a + ".log"), net.rootAddress()));
      }
      if (t.waitsForGo()) {
        awaitReady(outs, running, deadline);
        Files.writeString(go, (System.currentTimeMillis() + 200) + ".");
      }
      progress.update(setup.name(), round, "running the workload");
      for (int a = 0; a < apps; a++) {
        Process p = running.get(a);
        long left = deadline - System.nanoTime();
        if (!p.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
          problems.add(
              "application "
                  + a
                  + " did not finish within "
                  + plan.timeoutMinutes()
                  + " minutes; see "
                  + dir.resolve("app-" + a + ".log"));
        } else if (p.exitValue() != 0) {
          problems.add(
              "application "
                  + a
                  + " failed (exit "
                  + p.exitValue()
                  + "); see "
                  + dir.resolve("app-" + a + ".log"));
        }
      }
      if (setup.hostAgents()) {
        agentFigures = cluster.stopAgents();
      }
    } finally {
      for (Process p : running) {
        if (p.isAlive()) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        }
      }
      sampler.close();
      if (master != null) {
        master.destroy();
        if (!master.waitFor(20, TimeUnit.SECONDS)) {
          master.destroyForcibly();
        }
      }
    }
    List<Job> jobs = new ArrayList<>();
    Map<String, Long> executors = new TreeMap<>();
    List<long[]> busy = new ArrayList<>();
    for (int a = 0; a < apps; a++) {
      Path out = dir.resolve("app-" + a + ".out");
      if (!Files.exists(out)) {
        problems.add("application " + a + " wrote no results");
        continue;
      }
      Path events = dir.resolve("events-" + a);
      Map<String, EventLogFetchWait.Span> spans = EventLogFetchWait.spans(events);
      Map<String, EventLogFetchWait.Reads> reads = EventLogFetchWait.readDir(events);
      for (Job j : t.results(a, out)) {
        EventLogFetchWait.Span span = spans.get(t.group(j.id()));
        EventLogFetchWait.Reads r =
            reads.getOrDefault(t.group(j.id()), EventLogFetchWait.Reads.NONE);
        if (span != null) {
          busy.add(new long[] {span.submitMs(), span.endMs()});
        }
        jobs.add(
            new Job(
                j.id(),
                a,
                j.bytes() >= 0 ? j.bytes() : r.remoteBytes(),
                span != null ? span.submitMs() : 0,
                span != null && j.failure() == null ? span.millis() / 1e3 : j.seconds(),
                r.fetchWaitMs() / 1e3,
                r.gcMs() / 1e3,
                r.deserializeMs() / 1e3,
                j.digest(),
                j.failure()));
      }
      if (setup.plugin()) {
        for (Map<String, Long> m : submit.executorMetrics(dir.resolve("metrics-" + a)).values()) {
          m.forEach((k, v) -> executors.merge(k, v, Long::sum));
        }
      }
    }
    long from = busy.stream().mapToLong(b -> b[0]).min().orElse(0);
    long to = busy.stream().mapToLong(b -> b[1]).max().orElse(0);
    int submitted = 0;
    for (int a = 0; a < apps; a++) {
      submitted += t.jobCount(a);
    }
    return new Run(
        setup,
        round,
        jobs,
        submitted,
        sampler.summary(from, to, busy),
        executors,
        agentFigures,
        problems);
  }

  /**
   * Runs one untimed application through the setup before the measured ones: {@code warmupBytes} in
   * four all-to-all shuffles, one a second. Spark's workers, the external shuffle service, the host
   * agents and the master are long-lived daemons; started fresh for each setup they would spend the
   * measured minutes compiling their hot paths (the JIT took half the host agents' CPU in a cold
   * run), which a running cluster paid long ago. The measured applications' executors and drivers
   * start cold in every setup, as they do in production.
   *
   * @return why the warm-up failed, or null
   */
  private static String warmUp(
      Plan plan,
      Network net,
      Submitter submit,
      Path appJar,
      SparkCluster cluster,
      List<String> conf,
      Setup setup,
      Path dir,
      long deadline)
      throws IOException, InterruptedException {
    int tasks = 2 * net.hosts();
    long perReducer = Math.max(1, plan.warmupBytes() / 4 / tasks);
    List<String> lines = new ArrayList<>();
    for (int j = 0; j < 4; j++) {
      long[] reducers = new long[tasks];
      java.util.Arrays.fill(reducers, perReducer);
      lines.add(new TraceJobsApp.Job(j, j * 1000L, tasks, reducers).line());
    }
    Path jobs = Files.write(dir.resolve("warmup-jobs.txt"), lines);
    Path out = dir.resolve("warmup.out");
    Path go = dir.resolve("warmup.go");
    List<String> cmd = submit.command(cluster.masterUrl(), setup.plugin());
    for (String kv : conf) {
      cmd.addAll(List.of("--conf", kv));
    }
    cmd.addAll(
        List.of(
            "--name",
            "warm-up",
            "--driver-memory",
            "512m",
            "--class",
            TraceJobsApp.class.getName(),
            appJar.toString(),
            jobs.toString(),
            out.toString(),
            go.toString(),
            Integer.toString(net.hosts())));
    Path log = dir.resolve("warmup.log");
    Process p = submit.start(cmd, log, net.rootAddress());
    net.shaped(false);
    try {
      awaitReady(List.of(out), List.of(p), deadline);
      Files.writeString(go, System.currentTimeMillis() + ".");
      if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        return "the warm-up application did not finish in time; see " + log;
      }
      return p.exitValue() == 0
          ? null
          : "the warm-up application failed (exit " + p.exitValue() + "); see " + log;
    } finally {
      if (p.isAlive()) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
      net.shaped(true);
    }
  }

  /**
   * {@code bin/coflow master} on the root namespace's testbed address, with a token, its capacity
   * per host the link rate.
   */
  private static Process startMaster(Plan plan, Network net, String policy, Path token, Path dir)
      throws IOException {
    Path conf = dir.resolve("master.properties");
    Files.writeString(
        conf,
        "coflow.master.auth.tokenFile="
            + token
            + "\ncoflow.master.defaultCapacity="
            + Math.round(plan.link().bitsPerSecond())
            + "\n");
    List<String> argv = new ArrayList<>(plan.launcher());
    argv.addAll(
        List.of(
            "master",
            "--host",
            net.rootAddress(),
            "--port",
            "0",
            "--http-port",
            "-1",
            "--policy",
            policy,
            "--config",
            conf.toString(),
            "--port-file",
            dir.resolve("master.port").toString()));
    return new ProcessBuilder(argv)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("master.log").toFile())
        .start();
  }

  /** The master's gRPC port, once its port file says it (within 60 s). */
  private static int masterPort(Path dir, Process master) throws IOException, InterruptedException {
    Path file = dir.resolve("master.port");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file)) {
          if (line.startsWith("grpc.port=")) {
            return Integer.parseInt(line.substring(10).trim());
          }
        }
      }
      if (!master.isAlive()) {
        break;
      }
      Thread.sleep(100);
    }
    throw new IOException("the coflow master did not start; see " + dir.resolve("master.log"));
  }

  private static void awaitReady(List<Path> outs, List<Process> running, long deadline)
      throws IOException, InterruptedException {
    while (true) {
      boolean all = true;
      for (int a = 0; a < outs.size(); a++) {
        if (!Files.exists(Path.of(outs.get(a) + ".ready"))) {
          all = false;
          if (!running.get(a).isAlive()) {
            return; // it failed; the others run, and the failure is reported
          }
        }
      }
      if (all) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the applications did not get their executors in time");
      }
      Thread.sleep(100);
    }
  }

  /**
   * A jar of the application's classes alone, taken from this module's classes (a jar or a
   * directory): the bench jar would be fetched by every executor across the shaped links.
   */
  static Path appJar(Path jar, List<String> prefixes) throws IOException {
    Path source;
    try {
      source =
          Path.of(SparkTestbed.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      Set<String> written = new java.util.HashSet<>();
      if (Files.isDirectory(source)) {
        try (Stream<Path> s = Files.walk(source)) {
          for (Path p : s.filter(Files::isRegularFile).toList()) {
            String name = source.relativize(p).toString().replace('\\', '/');
            if (matches(name, prefixes) && written.add(name)) {
              out.putNextEntry(new JarEntry(name));
              Files.copy(p, out);
              out.closeEntry();
            }
          }
        }
      } else {
        try (JarFile in = new JarFile(source.toFile())) {
          for (JarEntry e : java.util.Collections.list(in.entries())) {
            if (matches(e.getName(), prefixes) && written.add(e.getName())) {
              out.putNextEntry(new JarEntry(e.getName()));
              try (InputStream is = in.getInputStream(e)) {
                is.transferTo(out);
              }
              out.closeEntry();
            }
          }
        }
      }
      if (written.isEmpty()) {
        throw new IOException("no classes " + prefixes + " in " + source);
      }
    }
    return jar;
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (Stream<Path> s = Files.walk(root)) {
        for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static boolean matches(String name, List<String> prefixes) {
    return name.endsWith(".class") && prefixes.stream().anyMatch(name::startsWith);
  }

  /** The figures of a job list by id, for comparing setups. */
  static Map<String, Job> byId(List<Job> jobs) {
    Map<String, Job> out = new LinkedHashMap<>();
    for (Job j : jobs) {
      out.put(j.id(), j);
    }
    return out;
  }
}
