package org.coflow.bench.tpcds;

import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import io.trino.tpcds.column.Column;
import io.trino.tpcds.column.ColumnType;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * TPC-DS data from the Java port of dsdgen ({@code io.trino.tpcds}, Apache-2.0), generated once per
 * scale factor as '|'-separated text into {@code <root>/sf<scale>/text/<table>/part-<n>.dat} with
 * the tables' schemas in {@code schema.txt} (one {@code table<TAB>Spark DDL} line each), so the
 * Spark side ({@link TpcdsTables}) needs no generator on its class path. Query text is read at run
 * time from Spark's spark-sql tests jar (TPC's licence: it is never committed here). Results
 * derived from TPC-DS are not comparable to published TPC-DS results.
 */
public final class TpcdsGenerator {
  /** Written last: a directory without it is a generation that did not finish. */
  static final String COMPLETE = "_COMPLETE";

  static final String SCHEMA = "schema.txt";

  private TpcdsGenerator() {}

  /** The directory of scale factor {@code scale} under {@code root}. */
  public static Path dir(Path root, double scale) {
    return root.resolve("sf" + scale);
  }

  /**
   * Generates scale factor {@code scale} under {@code root} unless it is already there; returns its
   * directory. The large tables are cut into {@code chunks} parts generated in parallel (dsdgen's
   * own chunking, so the rows are those of a single-part run).
   */
  public static Path generate(Path root, double scale, int chunks) throws IOException {
    if (!(scale > 0) || scale > 1000) {
      throw new IllegalArgumentException(
          "TPC-DS scale factor " + scale + " is out of range; use 0 < SF <= 1000");
    }
    Path dir = dir(root, scale);
    if (Files.exists(dir.resolve(COMPLETE))) {
      return dir;
    }
    Path text = dir.resolve("text");
    deleteTree(text);
    Files.createDirectories(text);
    int parts = Math.max(1, chunks);
    ExecutorService pool = Executors.newFixedThreadPool(parts);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (Table t : Table.getBaseTables()) {
        if (t == Table.DBGEN_VERSION || t.isChild()) {
          continue; // a child table (returns) comes with its parent (sales)
        }
        // Small tables in one part: dsdgen does not split them.
        int n = t.getScalingInfo().getRowCountForScale(scale) > 100_000 ? parts : 1;
        for (int c = 1; c <= n; c++) {
          Session s =
              Session.getDefaultSession()
                  .withScale(scale)
                  .withParallelism(n)
                  .withChunkNumber(c)
                  .withNoSexism(false);
          int chunk = c;
          work.add(
              pool.submit(
                  () -> {
                    writeTable(t, s, text, chunk);
                    return null;
                  }));
        }
      }
      for (Future<?> f : work) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io
          ? io
          : new IOException("generating TPC-DS data failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while generating TPC-DS data");
    } finally {
      pool.shutdownNow();
    }
    Files.writeString(
        dir.resolve(SCHEMA),
        Table.getBaseTables().stream()
            .filter(t -> t != Table.DBGEN_VERSION)
            .map(t -> t.getName() + "\t" + ddl(t))
            .collect(Collectors.joining("\n", "", "\n")));
    Files.writeString(dir.resolve(COMPLETE), "scale " + scale + "\n");
    return dir;
  }

  private static void writeTable(Table t, Session s, Path text, int chunk) throws IOException {
    String part = "part-" + chunk + ".dat";
    Path main = Files.createDirectories(text.resolve(t.getName())).resolve(part);
    Path childFile =
        t.hasChild()
            ? Files.createDirectories(text.resolve(t.getChild().getName())).resolve(part)
            : null;
    try (BufferedWriter w = Files.newBufferedWriter(main, StandardCharsets.UTF_8);
        BufferedWriter child =
            childFile == null ? null : Files.newBufferedWriter(childFile, StandardCharsets.UTF_8)) {
      for (List<List<String>> rows :
          Results.constructResults(t, s)) { // parent row, then child row if any
        write(w, rows.get(0));
        if (child != null && rows.size() > 1 && rows.get(1) != null) {
          write(child, rows.get(1));
        }
      }
    }
  }

  private static void write(BufferedWriter w, List<String> row) throws IOException {
    for (int i = 0; i < row.size(); i++) {
      if (i > 0) {
        w.write('|');
      }
      if (row.get(i) != null) {
        w.write(row.get(i));
      }
    }
    w.write('\n');
  }

  /** The table's schema as Spark DDL ({@code name TYPE, ...}). */
  static String ddl(Table t) {
    List<String> cols = new ArrayList<>();
    for (Column c : t.getColumns()) {
      cols.add("`" + c.getName() + "` " + type(c.getType()));
    }
    return String.join(", ", cols);
  }

  private static String type(ColumnType type) {
    switch (type.getBase()) {
      case IDENTIFIER:
        return "BIGINT";
      case INTEGER:
        return "INT";
      case DECIMAL:
        return "DECIMAL(" + type.getPrecision().orElse(7) + "," + type.getScale().orElse(2) + ")";
      case DATE:
        return "DATE";
      default:
        return "STRING";
    }
  }

  /** The text of query {@code name} (e.g. q72) from Spark's tests jar on this class path. */
  public static String query(String name) throws IOException {
    if (!name.matches("q[0-9]{1,2}[ab]?")) {
      throw new IllegalArgumentException(
          "no TPC-DS query named '" + name + "'; names look like q4, q14a, q72");
    }
    try (InputStream in =
        TpcdsGenerator.class.getClassLoader().getResourceAsStream("tpcds/" + name + ".sql")) {
      if (in == null) {
        throw new IllegalArgumentException(
            "tpcds/"
                + name
                + ".sql is not in Spark's spark-sql tests jar on the "
                + "class path: no TPC-DS query named '"
                + name
                + "'");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var s = Files.walk(p)) {
      s.sorted(java.util.Comparator.reverseOrder())
          .forEach(
              f -> {
                try {
                  Files.delete(f);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
