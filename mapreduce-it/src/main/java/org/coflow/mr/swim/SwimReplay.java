package org.coflow.mr.swim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.coflow.mr.CourierMiniCluster;

/**
 * Replays a planned SWIM workload (written by {@code bin/coflow bench swim}) on its own
 * two-NodeManager MiniMRYarnCluster with the Courier handler, or on a real ResourceManager: each
 * job is submitted at its (scaled) time, jobs overlap freely, and each one's time from submission
 * to completion is written out.
 *
 * <pre>
 * SwimReplay PLAN RESULTS stock|courier WORK_DIR [--master HOST:PORT] [--link-rate RATE] [--rm HOST:PORT]
 * </pre>
 *
 * Result lines: job, submit ms, duration ms, succeeded (true/false), shuffle bytes, reducers.
 */
public final class SwimReplay {
  private SwimReplay() {}

  record Planned(
      String name, long submitMillis, int maps, int reducers, long shuffle, long output) {}

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println(
          "usage: SwimReplay PLAN RESULTS stock|courier WORK_DIR [--master HOST:PORT] "
              + "[--link-rate RATE] [--rm HOST:PORT]");
      System.exit(2);
    }
    Path plan = Path.of(args[0]);
    Path results = Path.of(args[1]);
    String mode = args[2];
    Path work = Path.of(args[3]);
    String master = null;
    String linkRate = null;
    String rm = null;
    for (int i = 4; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--master" -> master = args[i + 1];
        case "--link-rate" -> linkRate = args[i + 1];
        case "--rm" -> rm = args[i + 1];
        default -> {
          System.err.println("SwimReplay: unknown option " + args[i]);
          System.exit(2);
        }
      }
    }
    if (!mode.equals("stock") && !mode.equals("courier")) {
      System.err.println("SwimReplay: mode '" + mode + "': use stock or courier");
      System.exit(2);
    }
    List<Planned> jobs = read(plan);
    CourierMiniCluster cluster = null;
    Configuration conf;
    if (rm == null) {
      cluster = CourierMiniCluster.start("swim-" + mode, 2, master, linkRate);
      conf = cluster.config();
    } else {
      // A real cluster: its *-site.xml on the class path (HADOOP_CONF_DIR) name the file system.
      conf = new Configuration();
      conf.set(MRConfig.FRAMEWORK_NAME, MRConfig.YARN_FRAMEWORK_NAME);
      conf.set("yarn.resourcemanager.address", rm);
    }
    conf.set(
        MRConfig.SHUFFLE_CONSUMER_PLUGIN,
        mode.equals("courier") ? CourierMiniCluster.PLUGIN : CourierMiniCluster.STOCK_PLUGIN);
    try {
      List<String> lines = replay(conf, jobs, work.resolve(mode));
      Files.write(results, lines, StandardCharsets.UTF_8);
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
    System.exit(0);
  }

  static List<Planned> read(Path plan) throws IOException {
    List<Planned> jobs = new ArrayList<>();
    for (String line : Files.readAllLines(plan, StandardCharsets.UTF_8)) {
      String[] f = line.split("\t");
      if (f.length != 6) {
        throw new IOException(plan + ": bad plan line '" + line + "'");
      }
      jobs.add(
          new Planned(
              f[0],
              Long.parseLong(f[1]),
              Integer.parseInt(f[2]),
              Integer.parseInt(f[3]),
              Long.parseLong(f[4]),
              Long.parseLong(f[5])));
    }
    jobs.sort(Comparator.comparingLong(Planned::submitMillis));
    return jobs;
  }

  /** Submits every job on the clock, waits for all; one result line per job, in plan order. */
  static List<String> replay(Configuration conf, List<Planned> jobs, Path work) throws Exception {
    Files.createDirectories(work);
    ExecutorService pool = Executors.newCachedThreadPool();
    List<Future<String>> done = new ArrayList<>();
    long t0 = System.currentTimeMillis();
    for (Planned p : jobs) {
      long wait = t0 + p.submitMillis() - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      Path out = work.resolve(p.name());
      FileUtil.fullyDelete(out.toFile());
      Job job =
          SwimJob.create(
              conf,
              p.name(),
              p.maps(),
              p.reducers(),
              p.shuffle(),
              p.output(),
              new org.apache.hadoop.fs.Path(out.toUri()));
      long submitted = System.currentTimeMillis();
      job.submit();
      System.err.printf(
          Locale.ROOT,
          "swim: %s submitted at %.1f s (%d maps, %d reducers, %d shuffle bytes)%n",
          p.name(),
          (submitted - t0) / 1000.0,
          p.maps(),
          p.reducers(),
          p.shuffle());
      done.add(
          pool.submit(
              () -> {
                boolean ok = job.waitForCompletion(false);
                long ms = System.currentTimeMillis() - submitted;
                FileUtil.fullyDelete(out.toFile());
                System.err.printf(
                    Locale.ROOT,
                    "swim: %s %s after %.1f s%n",
                    p.name(),
                    ok ? "done" : "FAILED",
                    ms / 1000.0);
                return String.join(
                    "\t",
                    p.name(),
                    Long.toString(p.submitMillis()),
                    Long.toString(ms),
                    Boolean.toString(ok),
                    Long.toString(p.shuffle()),
                    Integer.toString(p.reducers()));
              }));
    }
    List<String> lines = new ArrayList<>();
    for (Future<String> f : done) {
      lines.add(f.get(2, TimeUnit.HOURS));
    }
    pool.shutdown();
    return lines;
  }
}
