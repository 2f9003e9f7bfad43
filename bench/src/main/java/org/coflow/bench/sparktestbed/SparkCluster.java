package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.coflow.testbed.Network;

/**
 * A Spark standalone cluster across a testbed's hosts: the Master in the root namespace (on the
 * testbed's root address), one Worker in each host namespace, so that every executor lives in its
 * worker's namespace and every remote fetch crosses a shaped link. Spark is pyspark's: its {@code
 * bin/spark-class} starts the Master and Worker classes (the pip package has no {@code sbin} start
 * scripts) with {@code SPARK_HOME} at the pyspark directory. Optionally a Courier agent runs next
 * to each worker ({@link #startAgents}), shared by every application on that host.
 */
public final class SparkCluster implements AutoCloseable {
  /** The standalone Master's port on the root address. */
  public static final int MASTER_PORT = 7077;

  /** Where each host's Courier agent listens (Spark's external shuffle service keeps 7337). */
  public static final int AGENT_PORT = 7447;

  private final Network net;
  private final Path sparkHome;
  private final Path logs;
  private final List<Process> daemons = new ArrayList<>();
  private final List<Process> agents = new ArrayList<>();

  private SparkCluster(Network net, Path sparkHome, Path logs) {
    this.net = net;
    this.sparkHome = sparkHome;
    this.logs = logs;
  }

  /**
   * Starts the Master and one Worker per host and waits until every Worker registered.
   *
   * @param cores cores each Worker offers
   * @param memoryMb memory each Worker offers its executors
   * @param workerOpts {@code SPARK_WORKER_OPTS} (for instance the external shuffle service), or
   *     empty
   * @throws IOException if a daemon does not come up within {@code timeoutSeconds} (its log named)
   */
  public static SparkCluster start(
      Network net,
      Path sparkHome,
      Path logs,
      int cores,
      int memoryMb,
      String workerOpts,
      int timeoutSeconds)
      throws IOException, InterruptedException {
    SparkCluster c = new SparkCluster(net, sparkHome, Files.createDirectories(logs));
    try {
      Path masterLog = logs.resolve("spark-master.log");
      c.daemons.add(
          c.spawn(
              List.of(
                  "org.apache.spark.deploy.master.Master",
                  "--host",
                  net.rootAddress(),
                  "--port",
                  Integer.toString(MASTER_PORT),
                  "--webui-port",
                  "0"),
              net.rootAddress(),
              "",
              -1,
              masterLog));
      awaitLine(masterLog, "Starting Spark master at", c.daemons.get(0), timeoutSeconds);
      List<Path> workerLogs = new ArrayList<>();
      for (int h = 0; h < net.hosts(); h++) {
        Path log = logs.resolve("spark-worker-" + h + ".log");
        workerLogs.add(log);
        Path work = Files.createDirectories(logs.resolve("worker-" + h));
        Files.createDirectories(c.localDir(h));
        c.daemons.add(
            c.spawn(
                List.of(
                    "org.apache.spark.deploy.worker.Worker",
                    "--host",
                    net.address(h),
                    "--cores",
                    Integer.toString(cores),
                    "--memory",
                    memoryMb + "m",
                    "--work-dir",
                    work.toString(),
                    "--webui-port",
                    "0",
                    c.masterUrl()),
                net.address(h),
                workerOpts,
                h,
                log));
      }
      for (int h = 0; h < net.hosts(); h++) {
        awaitLine(
            workerLogs.get(h),
            "Successfully registered with master",
            c.daemons.get(h + 1),
            timeoutSeconds);
      }
      return c;
    } catch (IOException | InterruptedException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** What applications pass to {@code --master}. */
  public String masterUrl() {
    return "spark://" + net.rootAddress() + ":" + MASTER_PORT;
  }

  /** Where host {@code h}'s executors keep their block managers' files (shuffle outputs). */
  public Path localDir(int h) {
    return logs.resolve("local-" + h);
  }

  /** The directory of host {@code h}'s Worker (its executors' working directories). */
  public Path workDir(int h) {
    return logs.resolve("worker-" + h);
  }

  /**
   * Starts a Courier agent on every host, as {@code bin/coflow agent} runs it: host id the host's
   * address (what Spark's block manager calls it), listening there on {@link #AGENT_PORT}, serving
   * the host's {@link #localDir} (where its executors keep their shuffle files), proving {@code
   * secretFile}. Executors reach it with {@code spark.shuffle.courier.agent=}{@link #AGENT_PORT}.
   *
   * @param agentCommand the launcher's command line up to {@code agent} ({@code bin/coflow})
   * @param extra more {@code agent} options (the master, its token)
   */
  public void startAgents(
      List<String> agentCommand, Path secretFile, List<String> extra, int timeoutSeconds)
      throws IOException, InterruptedException {
    for (int h = 0; h < net.hosts(); h++) {
      Path portFile = logs.resolve("agent-" + h + ".port");
      Files.deleteIfExists(portFile);
      List<String> argv = new ArrayList<>(agentCommand);
      argv.addAll(
          List.of(
              "agent",
              "--host-id",
              net.address(h),
              "--bind",
              net.address(h),
              "--port",
              Integer.toString(AGENT_PORT),
              "--dirs",
              localDir(h).toString(),
              "--secret-file",
              secretFile.toString(),
              "--port-file",
              portFile.toString()));
      argv.addAll(extra);
      Process p =
          new ProcessBuilder(net.inHost(h, argv))
              .redirectErrorStream(true)
              .redirectOutput(logs.resolve("agent-" + h + ".log").toFile())
              .start();
      agents.add(p);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      while (!Files.exists(portFile)) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IOException(
              "the Courier agent of host "
                  + h
                  + " did not start; see "
                  + logs.resolve("agent-" + h + ".log"));
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Stops the hosts' agents and returns, per host, the figures each logged as it stopped ({@code
   * streams} fetched from other hosts, {@code served} to them, and the rest of its data-plane
   * line).
   */
  public List<Map<String, String>> stopAgents() throws IOException, InterruptedException {
    List<Map<String, String>> out = new ArrayList<>();
    for (Process p : agents) {
      p.destroy();
    }
    for (int h = 0; h < agents.size(); h++) {
      Process p = agents.get(h);
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      Map<String, String> figures = new java.util.TreeMap<>();
      for (String line : Files.readAllLines(logs.resolve("agent-" + h + ".log"))) {
        int at = line.indexOf(" data plane: ");
        if (at >= 0) {
          for (String kv : line.substring(at + 13).trim().split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
              figures.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
          }
        }
      }
      out.add(figures);
    }
    agents.clear();
    return out;
  }

  /** Runs {@code spark-class MAIN ARGS} in host {@code h}'s namespace (-1: the root's). */
  private Process spawn(
      List<String> mainAndArgs, String localIp, String workerOpts, int h, Path log)
      throws IOException {
    List<String> argv = new ArrayList<>();
    argv.add("env");
    Map<String, String> env =
        Map.of(
            "SPARK_HOME",
            sparkHome.toString(),
            "SPARK_LOCAL_IP",
            localIp,
            "SPARK_DAEMON_MEMORY",
            "256m",
            "JAVA_HOME",
            System.getProperty("java.home"),
            "SPARK_WORKER_OPTS",
            workerOpts,
            "SPARK_LOCAL_DIRS",
            h < 0 ? "" : localDir(h).toString(),
            "SPARK_NO_DAEMONIZE",
            "1");
    env.forEach((k, v) -> argv.add(k + "=" + v));
    argv.add(sparkHome.resolve("bin/spark-class").toString());
    argv.addAll(mainAndArgs);
    return new ProcessBuilder(h < 0 ? argv : net.inHost(h, argv))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void awaitLine(Path log, String text, Process p, int timeoutSeconds)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      if (Files.exists(log)
          && new String(Files.readAllBytes(log), StandardCharsets.UTF_8).contains(text)) {
        return;
      }
      if (!p.isAlive()) {
        throw new IOException("a Spark daemon exited (" + p.exitValue() + "); see " + log);
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("no '" + text + "' within " + timeoutSeconds + " s; see " + log);
      }
      Thread.sleep(200);
    }
  }

  /** Stops the agents, the Workers (with their executors) and the Master. */
  @Override
  public void close() {
    List<Process> all = new ArrayList<>(agents);
    for (int i = daemons.size() - 1; i >= 0; i--) {
      all.add(daemons.get(i));
    }
    for (Process p : all) {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
    }
    for (Process p : all) {
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
