package org.coflow.it.spark;

import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import io.trino.tpcds.column.Column;
import io.trino.tpcds.column.ColumnType;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * TPC-DS data from the Java port of dsdgen ({@code io.trino.tpcds}), generated once per scale into
 * {@code target/tpcds/sf<scale>} as Parquet, and the query text read at run time from Spark's
 * spark-sql tests jar (never committed: TPC's licence). Results derived from TPC-DS are not
 * comparable to published TPC-DS results.
 */
final class TpcdsData {
  private TpcdsData() {}

  /** Generates (once) and registers every table as a temporary view of {@code spark}. */
  static void register(SparkSession spark, Path root, double scale) throws IOException {
    Path dir = root.resolve("sf" + scale);
    Path done = dir.resolve("_COMPLETE");
    if (!Files.exists(done)) {
      Path text = Files.createDirectories(dir.resolve("text"));
      Session session = Session.getDefaultSession().withScale(scale).withParallelism(1).withNoSexism(false);
      for (Table t : Table.getBaseTables()) {
        if (t == Table.DBGEN_VERSION || t.isChild()) {
          continue; // a child table (returns) comes with its parent (sales)
        }
        try (BufferedWriter w = Files.newBufferedWriter(text.resolve(t.getName() + ".dat"), StandardCharsets.UTF_8);
            BufferedWriter child = t.hasChild()
                ? Files.newBufferedWriter(text.resolve(t.getChild().getName() + ".dat"), StandardCharsets.UTF_8)
                : null) {
          for (List<List<String>> rows : Results.constructResults(t, session)) { // parent row, then child row if any
            write(w, rows.get(0));
            if (child != null && rows.size() > 1 && rows.get(1) != null) {
              write(child, rows.get(1));
            }
          }
        }
      }
      for (Table t : Table.getBaseTables()) {
        if (t == Table.DBGEN_VERSION) {
          continue;
        }
        spark.read().option("sep", "|").option("mode", "FAILFAST").schema(schema(t))
            .csv(text.resolve(t.getName() + ".dat").toString())
            .write().mode("overwrite").parquet(dir.resolve("parquet").resolve(t.getName()).toString());
      }
      Files.writeString(done, "scale " + scale + "\n");
    }
    for (Table t : Table.getBaseTables()) {
      if (t != Table.DBGEN_VERSION) {
        spark.read().parquet(dir.resolve("parquet").resolve(t.getName()).toString()).createOrReplaceTempView(t.getName());
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

  private static StructType schema(Table t) {
    StructType s = new StructType();
    for (Column c : t.getColumns()) {
      s = s.add(c.getName(), type(c.getType()), true);
    }
    return s;
  }

  private static DataType type(ColumnType type) {
    switch (type.getBase()) {
      case IDENTIFIER:
        return DataTypes.LongType;
      case INTEGER:
        return DataTypes.IntegerType;
      case DECIMAL:
        return DataTypes.createDecimalType(type.getPrecision().orElse(7), type.getScale().orElse(2));
      case DATE:
        return DataTypes.DateType;
      default:
        return DataTypes.StringType;
    }
  }

  /** The text of query {@code name} (e.g. q72) from Spark's tests jar. */
  static String query(String name) throws IOException {
    try (InputStream in = TpcdsData.class.getClassLoader().getResourceAsStream("tpcds/" + name + ".sql")) {
      if (in == null) {
        throw new IOException("tpcds/" + name + ".sql is not on the class path (spark-sql tests jar)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
