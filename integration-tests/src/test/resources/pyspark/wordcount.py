"""A small job for the spark-submit test: counts words with a shuffle, writes the counts as JSON."""
import json
import sys
import time

from pyspark.sql import SparkSession

out = sys.argv[1]
spark = SparkSession.builder.appName("coflow-spark-submit-test").getOrCreate()
words = spark.range(0, 200000, 1, 6).selectExpr("concat('w', cast(id % 911 as string)) as word")
counts = {r["word"]: r["count"] for r in words.groupBy("word").count().collect()}
# A second shuffle of whole rows (no map-side combining): every byte crosses the shuffle.
rows = spark.range(0, 100000, 1, 4).selectExpr("id", "sha2(cast(id as string), 256) as h")
total = rows.repartition(5, "h").selectExpr("count(*) as n", "sum(length(h)) as bytes").collect()[0]
with open(out, "w") as f:
    json.dump({"counts": counts, "rows": total["n"], "bytes": total["bytes"]}, f)
# The executors' metrics sinks report every second: let them report the finished shuffles.
time.sleep(3)
spark.stop()
