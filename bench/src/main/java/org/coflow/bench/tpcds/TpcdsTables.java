package org.coflow.bench.tpcds;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark side of {@link TpcdsGenerator}'s data: converts its text to Parquet once (in {@code
 * parquet/} next to it) and registers every table as a temporary view. Needs only Spark.
 */
public final class TpcdsTables {
  private TpcdsTables() {}

  /** Registers every table of the generated directory {@code dir} as a view of {@code spark}. */
  public static void register(SparkSession spark, Path dir) throws IOException {
    if (!Files.exists(dir.resolve(TpcdsGenerator.COMPLETE))) {
      throw new IOException(
          "no complete TPC-DS data in " + dir + " (generate it first: TpcdsGenerator.generate)");
    }
    Map<String, String> schemas = new LinkedHashMap<>();
    for (String line : Files.readAllLines(dir.resolve(TpcdsGenerator.SCHEMA))) {
      if (!line.isBlank()) {
        String[] kv = line.split("\t", 2);
        schemas.put(kv[0], kv[1]);
      }
    }
    Path parquet = dir.resolve("parquet");
    Path done = parquet.resolve(TpcdsGenerator.COMPLETE);
    if (!Files.exists(done)) {
      for (Map.Entry<String, String> t : schemas.entrySet()) {
        Path text = dir.resolve("text").resolve(t.getKey());
        spark
            .read()
            .option("sep", "|")
            .option("mode", "FAILFAST")
            .schema(StructType.fromDDL(t.getValue()))
            .csv(text.toString())
            .write()
            .mode("overwrite")
            .parquet(parquet.resolve(t.getKey()).toString());
      }
      Files.writeString(done, "from " + dir.resolve("text") + "\n");
    }
    for (String t : schemas.keySet()) {
      spark.read().parquet(parquet.resolve(t).toString()).createOrReplaceTempView(t);
    }
  }
}
