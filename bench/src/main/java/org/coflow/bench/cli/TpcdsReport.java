package org.coflow.bench.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.coflow.bench.tpcds.EventLogFetchWait.Reads;
import org.coflow.core.config.Units;
import org.coflow.sim.report.Json;

/**
 * The figures of one {@code bin/coflow bench tpcds}: in the single stream, each reader's time per
 * query (the mean of its runs), the ratio ours/stock over the set, each reader's fetch wait from
 * the event log, and how much the order of the runs alone moved the times; in the streams part, the
 * mean query time under fair sharing and under the policy.
 *
 * @param results the runs by part: {@code single}, {@code fair}, {@code policy}
 */
record TpcdsReport(
    double scale,
    int streams,
    double gap,
    double linkRate,
    String policy,
    List<String> queries,
    Map<String, List<TpcdsReport.Run>> results,
    String spark) {

  /**
   * One run of one query: its time, row count and rows' digest, or why it failed; and its shuffle
   * reads, when the event log was read. In the single stream {@code way} is a reader and its round
   * ({@code stock.1}, {@code courier.2}) or an untimed run ({@code warmup.1}); in the streams part,
   * the stream.
   */
  record Run(
      String query,
      String way,
      double seconds,
      int rows,
      String digest,
      String failure,
      Reads reads) {
    boolean failed() {
      return failure != null;
    }

    Run with(Reads sum) {
      return new Run(query, way, seconds, rows, digest, failure, sum);
    }

    /** The reader of a single-stream run: {@code stock}, {@code courier} or {@code warmup}. */
    String reader() {
      int dot = way.indexOf('.');
      return dot < 0 ? way : way.substring(0, dot);
    }
  }

  /**
   * The result lines of {@code TpcdsBenchApp}, in the order the runs went; {@code way} is the
   * single stream's reader and round, or the stream number.
   */
  static List<Run> parse(List<String> lines) {
    List<Run> runs = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.split("\t", 6);
      if (!(f[0].equals("single") || f[0].equals("stream")) || f.length < 5) {
        continue;
      }
      String query = f[0].equals("single") ? f[1] : f[2];
      String way = f[0].equals("single") ? f[2] : "stream" + f[1];
      if (f[3].equals("FAILED")) {
        String why = String.join(" ", List.of(f).subList(4, f.length));
        runs.add(new Run(query, way, Double.NaN, 0, null, why, null));
      } else if (f.length == 6) {
        runs.add(
            new Run(
                query, way, Double.parseDouble(f[3]), Integer.parseInt(f[4]), f[5], null, null));
      }
    }
    return runs;
  }

  /** A part's runs of the queries none of whose runs failed. */
  private Stream<Run> ok(String part) {
    Map<String, String> failed = failures();
    return results.get(part).stream().filter(r -> !failed.containsKey(r.query()));
  }

  /** A reader's runs of a query in the single stream ({@code query} null: of every query). */
  private Stream<Run> single(String query, String reader) {
    return ok("single")
        .filter(r -> r.reader().equals(reader) && (query == null || r.query().equals(query)));
  }

  /** A reader's time over the set, each query counted as the mean of its runs. */
  private double total(String reader) {
    return queries.stream()
        .filter(q -> !failures().containsKey(q))
        .mapToDouble(q -> seconds(q, reader))
        .sum();
  }

  /** A reader's time for one query: the mean of its runs. */
  private double seconds(String query, String reader) {
    return single(query, reader).mapToDouble(Run::seconds).average().orElse(Double.NaN);
  }

  private double mean(String part) {
    return ok(part).mapToDouble(Run::seconds).average().orElse(Double.NaN);
  }

  private double sum(String part) {
    return ok(part).mapToDouble(Run::seconds).sum();
  }

  /** The queries with a failed single-stream run, each with its first failure's way and why. */
  Map<String, String> failures() {
    Map<String, String> f = new LinkedHashMap<>();
    for (Run r : results.getOrDefault("single", List.of())) {
      if (r.failed()) {
        f.putIfAbsent(r.query(), r.way() + ": " + r.failure());
      }
    }
    return f;
  }

  /** Every run of a query that did not fail, in every part, gave the same rows. */
  boolean digestsAgree() {
    Map<String, String> seen = new LinkedHashMap<>();
    for (List<Run> runs : results.values()) {
      for (Run r : runs) {
        String d = r.failed() ? null : seen.putIfAbsent(r.query(), r.digest());
        if (d != null && !d.equals(r.digest())) {
          return false;
        }
      }
    }
    return true;
  }

  Double singleRatio() {
    return results.containsKey("single") ? total("courier") / total("stock") : null;
  }

  Double streamsRatio() {
    return results.containsKey("fair") ? mean("policy") / mean("fair") : null;
  }

  /**
   * What the order of the runs alone does: over the queries, the geometric mean of the first timed
   * run's time over the time of the same reader's last run. 1 if the runs do not drift; above 1
   * when a query's first timed run is slower whatever reader it uses. Null when no query ran one
   * reader twice.
   */
  Double orderEffect() {
    if (!results.containsKey("single")) {
      return null;
    }
    double logs = 0;
    int n = 0;
    for (String q : queries) {
      List<Run> timed = timed(q);
      if (timed.size() < 2) {
        continue;
      }
      Run first = timed.get(0);
      Run last = null;
      for (Run r : timed.subList(1, timed.size())) {
        if (r.reader().equals(first.reader())) {
          last = r;
        }
      }
      if (last != null && first.seconds() > 0 && last.seconds() > 0) {
        logs += Math.log(first.seconds() / last.seconds());
        n++;
      }
    }
    return n == 0 ? null : Math.exp(logs / n);
  }

  /** The single run's summed shuffle fetch wait ours/stock; null without its event log. */
  Double fetchWaitRatio() {
    return hasReads() ? (double) waitPerRun(null, "courier") / waitPerRun(null, "stock") : null;
  }

  /** Whether the single run's shuffle reads came from its event log. */
  private boolean hasReads() {
    return results.containsKey("single")
        && results.get("single").stream().anyMatch(r -> r.reads() != null);
  }

  /** A reader's shuffle reads in the single run, summed over its runs. */
  private Reads reads(String query, String reader) {
    return single(query, reader)
        .map(r -> r.reads() == null ? Reads.NONE : r.reads())
        .reduce(Reads.NONE, Reads::plus);
  }

  /** A reader's fetch wait per run of a query (its runs' mean), or summed so over the set. */
  private long waitPerRun(String query, String reader) {
    if (query == null) {
      return queries.stream()
          .filter(q -> !failures().containsKey(q))
          .mapToLong(q -> waitPerRun(q, reader))
          .sum();
    }
    long runs = Math.max(1, single(query, reader).count());
    return Math.round((double) reads(query, reader).fetchWaitMs() / runs);
  }

  /** A query's timed runs in the single stream, in the order they ran. */
  private List<Run> timed(String query) {
    return ok("single")
        .filter(r -> r.query().equals(query) && !r.reader().equals("warmup"))
        .toList();
  }

  /** A query's timed runs in order, as {@code s 7.36 c 8.70 ...}. */
  private List<String> timedRuns(String query) {
    return timed(query).stream()
        .map(r -> String.format(Locale.ROOT, "%s %.2f", r.reader().substring(0, 1), r.seconds()))
        .toList();
  }

  String json() {
    Json j =
        new Json()
            .put("spark", spark)
            .put("scale", scale)
            .put("cluster", TpcdsBenchCommand.CLUSTER)
            .put("queries", String.join(",", queries))
            .put("rows_equal", digestsAgree());
    if (results.containsKey("single")) {
      Json per = new Json();
      for (String q : queries) {
        Json one = new Json();
        if (failures().containsKey(q)) {
          one.put("failed", failures().get(q));
        } else {
          one.put("stock_s", seconds(q, "stock"))
              .put("courier_s", seconds(q, "courier"))
              .put("runs", timedRuns(q));
          if (hasReads()) {
            Reads s = reads(q, "stock");
            Reads c = reads(q, "courier");
            one.put("fetch_wait_ms_stock", waitPerRun(q, "stock"))
                .put("fetch_wait_ms_courier", waitPerRun(q, "courier"))
                .put("remote_blocks_stock", s.remoteBlocks())
                .put("remote_blocks_courier", c.remoteBlocks())
                .put("remote_bytes_stock", s.remoteBytes())
                .put("remote_bytes_courier", c.remoteBytes());
          }
        }
        per.put(q, one);
      }
      j.put("single_stock_s", total("stock"))
          .put("single_courier_s", total("courier"))
          .put("single_time_ratio", singleRatio());
      Double order = orderEffect();
      if (order != null) {
        j.put("single_order_effect", order);
      }
      if (hasReads()) {
        j.put("single_fetch_wait_ms_stock", waitPerRun(null, "stock"))
            .put("single_fetch_wait_ms_courier", waitPerRun(null, "courier"))
            .put("single_fetch_wait_ratio", fetchWaitRatio());
      }
      j.put("single_failed", List.copyOf(failures().keySet())).put("single_per_query", per);
    }
    if (results.containsKey("fair")) {
      j.put("streams", streams)
          .put("arrival_gap_s", gap)
          .put("link_rate_bps", linkRate * 8)
          .put("policy", policy)
          .put("streams_fair_mean_query_s", mean("fair"))
          .put("streams_policy_mean_query_s", mean("policy"))
          .put("streams_mean_query_ratio", streamsRatio());
    }
    return j.toString();
  }

  /** A single-stream table row: times, fetch waits (if known), the ratios and the runs. */
  private String row(String name, double stock, double courier, String query) {
    String waits = "";
    if (hasReads()) {
      long ws = waitPerRun(query, "stock");
      long wc = waitPerRun(query, "courier");
      String ratio = ws > 0 ? String.format(Locale.ROOT, "%.2f", (double) wc / ws) : "-";
      waits = String.format(Locale.ROOT, " %14d %16d %11s", ws, wc, ratio);
    }
    return String.format(
        Locale.ROOT,
        "%-8s %10.2f %10.2f %8.2f%s  %s%n",
        name,
        stock,
        courier,
        courier / stock,
        waits,
        query == null ? "" : String.join(" ", timedRuns(query)));
  }

  String table() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%nTPC-DS-derived queries, Spark %s, scale %s, %s, broadcast joins off%n",
            spark,
            scale,
            TpcdsBenchCommand.CLUSTER));
    Map<String, String> failed = failures();
    if (results.containsKey("single")) {
      singleTable(sb, failed);
    }
    if (results.containsKey("fair")) {
      streamsTable(sb);
    }
    sb.append(
        digestsAgree()
            ? "every run of a query returned the same rows\n"
            : "ROWS DIFFER between runs of a query: see target/bench-tpcds/*.tsv\n");
    if (!failed.isEmpty()) {
      sb.append(
          String.format(
              Locale.ROOT,
              "%d of %d queries FAILED: see target/bench-tpcds/single.log%n",
              failed.size(),
              queries.size()));
    }
    return sb.toString();
  }

  private void singleTable(StringBuilder sb, Map<String, String> failed) {
    sb.append(
        String.format(
            Locale.ROOT,
            "%nsingle stream (s and ms: each reader's mean per run)%n%-8s %10s %10s %8s%s  %s%n",
            "query",
            "stock s",
            "courier s",
            "ratio",
            hasReads()
                ? String.format(
                    Locale.ROOT,
                    " %14s %16s %11s",
                    "stock wait ms",
                    "courier wait ms",
                    "wait ratio")
                : "",
            "timed runs in order (s: stock, c: courier)"));
    for (String q : queries) {
      sb.append(
          failed.containsKey(q)
              ? String.format(Locale.ROOT, "%-8s FAILED: %s%n", q, failed.get(q))
              : row(q, seconds(q, "stock"), seconds(q, "courier"), q));
    }
    sb.append(row("total", total("stock"), total("courier"), null));
    if (!failed.isEmpty()) {
      sb.append("the total leaves out the failed queries: ")
          .append(String.join(", ", failed.keySet()))
          .append('\n');
    }
    sb.append(
        String.format(Locale.ROOT, "time ratio ours/stock = %.3f (goal <= 1.00)%n", singleRatio()));
    Double order = orderEffect();
    if (order != null) {
      sb.append(
          String.format(
              Locale.ROOT,
              "order alone: a query's first timed run / the same reader's last = %.3f"
                  + " (geometric mean; each reader runs first in turn)%n",
              order));
    }
    Double wait = fetchWaitRatio();
    if (wait != null && Double.isFinite(wait)) {
      sb.append(
          String.format(
              Locale.ROOT,
              "shuffle fetch wait ours/stock = %.3f (tasks' time blocked on fetches, summed)%n",
              wait));
    }
  }

  private void streamsTable(StringBuilder sb) {
    sb.append(
        String.format(
            Locale.ROOT,
            "%n%d concurrent streams%s, agents capped at %s%n%-24s %10s %10s%n",
            streams,
            gap > 0
                ? String.format(Locale.ROOT, " (a query every %.0f s each, open loop)", gap)
                : " (back to back)",
            Units.formatBitRate(linkRate),
            "",
            "fair",
            policy));
    sb.append(
        String.format(
            Locale.ROOT,
            "%-24s %10.2f %10.2f%n",
            "mean query time (s)",
            mean("fair"),
            mean("policy")));
    sb.append(
        String.format(
            Locale.ROOT,
            "%-24s %10.2f %10.2f%n",
            "sum of query times (s)",
            sum("fair"),
            sum("policy")));
    sb.append(
        String.format(
            Locale.ROOT,
            "mean query time %s/fair = %.3f (lower is better)%n",
            policy,
            streamsRatio()));
  }
}
