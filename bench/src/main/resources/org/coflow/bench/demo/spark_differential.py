"""The Spark version check's job (bin/coflow bench spark-versions and the spark-submit tests):
RDD and SQL shuffles, each run once through the Courier agents and once with Spark's own fetch
(the job-local property spark.shuffle.courier.enabled=false picks it); writes both results'
digests and a few known values as JSON."""
import hashlib
import json
import sys
import time

from pyspark.sql import SparkSession

out = sys.argv[1]
spark = SparkSession.builder.appName("coflow-spark-differential").getOrCreate()
sc = spark.sparkContext


def jobs():
    words = spark.range(0, 200000, 1, 6).selectExpr("concat('w', cast(id % 911 as string)) as word")
    counts = {r["word"]: r["count"] for r in words.groupBy("word").count().collect()}
    # A shuffle of whole rows (no map-side combining): every byte crosses the shuffle.
    rows = spark.range(0, 100000, 1, 4).selectExpr("id", "sha2(cast(id as string), 256) as h")
    total = rows.repartition(5, "h").selectExpr("count(*) as n", "sum(length(h)) as bytes").collect()[0]
    spark.range(0, 60000, 1, 4).selectExpr("id % 97 as k", "id * 3 as v").createOrReplaceTempView("t")
    sql = [list(r) for r in spark.sql(
        "SELECT k, count(*) AS n, sum(v) AS s, max(v) AS m FROM t GROUP BY k ORDER BY k").collect()]
    # Python RDDs: distinct keys (50021 is prime), so sortByKey's order is fully determined.
    pairs = sc.parallelize(range(50000), 4).map(lambda i: (i * 7919 % 50021, i))
    sums = sorted(pairs.map(lambda kv: (kv[0] % 1000, kv[1])).reduceByKey(lambda a, b: a + b, 5).collect())
    groups = sorted((k, sorted(v)) for k, v in pairs.map(lambda kv: (kv[0] % 300, kv[1])).groupByKey(3).collect())
    ordered = pairs.sortByKey(False, 4).collect()
    return {"counts": counts, "rows": total["n"], "bytes": total["bytes"], "sql": sql,
            "sums": sums, "groups": groups, "ordered": ordered}


def digest(r):
    return hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()


courier = jobs()
sc.setLocalProperty("spark.shuffle.courier.enabled", "false")
stock = jobs()
sc.setLocalProperty("spark.shuffle.courier.enabled", None)
with open(out, "w") as f:
    json.dump({"spark": spark.version, "courier_digest": digest(courier), "stock_digest": digest(stock),
               "w0": courier["counts"]["w0"], "w910": courier["counts"]["w910"],
               "rows": courier["rows"], "bytes": courier["bytes"], "sql_groups": len(courier["sql"]),
               "ordered_first": courier["ordered"][0]}, f)
# The executors' metrics sinks report every second: let them report the finished shuffles.
time.sleep(3)
spark.stop()
