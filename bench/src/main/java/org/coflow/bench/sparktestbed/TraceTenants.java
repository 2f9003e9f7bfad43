package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.coflow.testbed.Workload;

/**
 * A trace slice as Spark jobs ({@link TraceJobsApp}): coflow {@code i} of the slice goes to
 * application {@code i mod apps}, arriving at its time on the slice's clock. A coflow keeps its
 * bytes; its mappers and reducers become at most {@code maxTasks} map and reduce tasks (reducers
 * beyond that fold onto task {@code r mod maxTasks}), since each Spark task costs a JVM-side
 * scheduling round that the trace's hundreds of tiny tasks would turn into the whole measurement.
 */
public final class TraceTenants implements Tenants {
  /**
   * The class-file prefix of {@link TraceJobsApp}'s classes, for the application's jar (a string:
   * loading the class needs Spark, which the launcher does not have).
   */
  static final List<String> APP_CLASSES = List.of("org/coflow/bench/sparktestbed/TraceJobsApp");

  private final Workload workload;
  private final int apps;
  private final int maxTasks;

  public TraceTenants(Workload workload, int apps, int maxTasks) {
    if (apps < 1 || maxTasks < 1) {
      throw new IllegalArgumentException(
          "applications " + apps + " and tasks " + maxTasks + ": each at least 1");
    }
    this.workload = workload;
    this.apps = apps;
    this.maxTasks = maxTasks;
  }

  @Override
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s as Spark jobs, %d applications, at most %d tasks a stage",
        workload.source(),
        apps,
        maxTasks);
  }

  @Override
  public int apps() {
    return apps;
  }

  @Override
  public int jobCount(int app) {
    return jobs(app).size();
  }

  @Override
  public String mainClass() {
    return TraceJobsApp.class.getName();
  }

  @Override
  public List<String> appClasses() {
    return APP_CLASSES;
  }

  /** Uncompressed shuffle output: the bytes on the wire are the trace's. */
  @Override
  public List<String> conf() {
    return List.of("spark.shuffle.compress=false");
  }

  @Override
  public int driverMemoryMb() {
    return 512;
  }

  /** The jobs of application {@code app}. */
  List<TraceJobsApp.Job> jobs(int app) {
    List<TraceJobsApp.Job> out = new ArrayList<>();
    List<Workload.Coflow> coflows = workload.coflows();
    for (int i = app; i < coflows.size(); i += apps) {
      Workload.Coflow c = coflows.get(i);
      int mappers = 0;
      for (int m : c.mappersOn()) {
        mappers += m;
      }
      long[] reducers = new long[Math.min(maxTasks, c.reducers().size())];
      for (int r = 0; r < c.reducers().size(); r++) {
        reducers[r % reducers.length] += c.reducers().get(r).bytes();
      }
      out.add(new TraceJobsApp.Job(c.id(), c.arrivalMs(), Math.min(maxTasks, mappers), reducers));
    }
    return out;
  }

  @Override
  public List<String> args(int app, Path dir, Path out, Path go, int executors) throws IOException {
    Path file = dir.resolve("jobs-" + app + ".txt");
    List<String> lines = new ArrayList<>();
    for (TraceJobsApp.Job j : jobs(app)) {
      lines.add(j.line());
    }
    Files.write(file, lines);
    return List.of(file.toString(), out.toString(), go.toString(), Integer.toString(executors));
  }

  @Override
  public List<SparkTestbed.Job> results(int app, Path out) throws IOException {
    List<SparkTestbed.Job> jobs = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      String[] f = line.split(" ", 5);
      if (!f[0].equals("job")) {
        continue;
      }
      long bytes = Long.parseLong(f[2]);
      if (f[3].equals("FAILED")) {
        jobs.add(SparkTestbed.Job.failed(f[1], app, bytes, f.length > 4 ? f[4] : ""));
      } else {
        String[] g = f[4].split(" ");
        double seconds = (Long.parseLong(g[0]) - Long.parseLong(f[3])) / 1e3;
        jobs.add(SparkTestbed.Job.of(f[1], app, bytes, seconds, g[1]));
      }
    }
    return jobs;
  }

  @Override
  public boolean waitsForGo() {
    return true;
  }

  @Override
  public String group(String id) {
    return "coflow-" + id;
  }
}
