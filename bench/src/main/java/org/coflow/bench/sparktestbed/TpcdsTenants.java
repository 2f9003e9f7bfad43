package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.coflow.bench.tpcds.TpcdsBenchApp;

/**
 * TPC-DS query streams, one application each ({@link TpcdsBenchApp}'s open loop with one stream):
 * application {@code a} submits the query list, rotated to start at its {@code a/apps} point, one
 * query every {@code gap} seconds whether or not the last one ended. Broadcast joins are off (every
 * join shuffles) and AQE is on, as in {@code bench tpcds}.
 */
public final class TpcdsTenants implements Tenants {
  private final Path data;
  private final Path queryDir;
  private final List<String> queries;
  private final int streams;
  private final double gap;

  public TpcdsTenants(Path data, Path queryDir, List<String> queries, int streams, double gap) {
    if (streams < 1 || gap <= 0 || queries.isEmpty()) {
      throw new IllegalArgumentException(
          "streams "
              + streams
              + ", gap "
              + gap
              + " s, "
              + queries.size()
              + " queries: need"
              + " at least one stream and one query, and a positive gap");
    }
    this.data = data;
    this.queryDir = queryDir;
    this.queries = List.copyOf(queries);
    this.streams = streams;
    this.gap = gap;
  }

  @Override
  public String describe() {
    return String.format(
        Locale.ROOT,
        "TPC-DS %s, %d streams (one application each), a query every %.0f s",
        String.join(",", queries),
        streams,
        gap);
  }

  @Override
  public int apps() {
    return streams;
  }

  @Override
  public int jobCount(int app) {
    return queries.size();
  }

  @Override
  public String mainClass() {
    return TpcdsBenchApp.class.getName();
  }

  @Override
  public List<String> appClasses() {
    return List.of("org/coflow/bench/tpcds/TpcdsBenchApp", "org/coflow/bench/tpcds/TpcdsTables");
  }

  @Override
  public List<String> conf() {
    return List.of("spark.sql.autoBroadcastJoinThreshold=-1", "spark.sql.adaptive.enabled=true");
  }

  @Override
  public int driverMemoryMb() {
    return 1024;
  }

  private List<String> order(int app) {
    List<String> out = new ArrayList<>();
    int first = app * queries.size() / streams;
    for (int k = 0; k < queries.size(); k++) {
      out.add(queries.get((first + k) % queries.size()));
    }
    return out;
  }

  @Override
  public List<String> args(int app, Path dir, Path out, Path go, int executors) {
    return List.of(
        "streams",
        data.toString(),
        queryDir.toString(),
        out.toString(),
        "1",
        String.join(",", order(app)),
        Double.toString(gap));
  }

  @Override
  public List<SparkTestbed.Job> results(int app, Path out) throws IOException {
    List<SparkTestbed.Job> jobs = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      String[] f = line.split("\t");
      if (f.length == 6 && f[0].equals("stream")) {
        jobs.add(
            SparkTestbed.Job.of(
                "t" + app + "-" + f[2], app, -1, Double.parseDouble(f[3]), f[4] + ":" + f[5]));
      }
    }
    return jobs;
  }

  @Override
  public boolean waitsForGo() {
    return false;
  }

  @Override
  public String group(String id) {
    return "stream0-" + id.substring(id.indexOf('-') + 1);
  }
}
