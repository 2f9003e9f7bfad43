"""bin/coflow demo's Spark application: a large and a small shuffle at the same time.

Usage: spark-submit ... coflow_demo.py OUT_JSON LARGE_MB SMALL_MB DELAY_S PARTITIONS

Each job shuffles rows of incompressible bytes (SHA-512 hex, so the codec cannot shrink them)
through a repartition into PARTITIONS reduce tasks: every byte crosses the shuffle. Both data sets
are computed and cached first, in 2 * PARTITIONS partitions while the cluster is idle, so half of
each sits on each executor; the jobs' map tasks then run where their partitions are and every run
sends the same bytes over the same links (map tasks placed wherever a slot came free first made
one host receive up to three times what the other did, and a run's CCT with it). The large job
starts first; the small one DELAY_S seconds after the large one's reduce tasks started reading, so
the two shuffles share the agents' links. With PARTITIONS at most half the cluster's task slots,
the small job never waits for a slot: what differs between policies is the network alone.
Writes the jobs' times and every shuffle's completion time (ShuffleTimes, measured in the
driver) to OUT_JSON.
"""
import json
import sys
import threading
import time

from pyspark.sql import SparkSession

out, large_mb, small_mb, delay = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
partitions = int(sys.argv[5])
MAP_TASKS = 2 * partitions  # one per slot of the idle cluster; never the reduce stage's task count
spark = SparkSession.builder.getOrCreate()
sc = spark.sparkContext
ROW_BYTES = 4 * 128  # four SHA-512 hex digests per row
PAD = "concat(" + ", ".join("sha2(cast(id + %d as string), 512)" % k for k in range(4)) + ")"
jobs = {}


def data(megabytes):
    """The rows of a job, computed and cached (outside the measured time)."""
    rows = int(megabytes * 1024 * 1024 / ROW_BYTES)
    df = spark.range(0, rows, 1, MAP_TASKS).selectExpr("id", PAD + " as pad").cache()
    df.count()
    return df, rows


def shuffle(name, prepared, partitions):
    df, rows = prepared
    sc.setJobGroup(name, "%s shuffle of %.0f MB" % (name, rows * ROW_BYTES / 1048576.0))
    sc.setLocalProperty("spark.scheduler.pool", name)
    start = time.time()
    r = df.repartition(partitions, "id").selectExpr("count(*) as n", "sum(length(pad)) as b").collect()[0]
    jobs[name] = {"seconds": time.time() - start, "rows": r["n"], "bytes": r["b"], "expected_rows": rows}


def reading(group, tasks):
    """Whether a stage of the job group with this many tasks (its reduce stage) runs tasks."""
    tracker = sc.statusTracker()
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info else []):
            s = tracker.getStageInfo(stage)
            if s and s.numTasks == tasks and s.numActiveTasks + s.numCompletedTasks > 0 and s.name.startswith("collect"):
                return True
    return False


large_data, small_data = data(large_mb), data(small_mb)
large = threading.Thread(target=shuffle, args=("large", large_data, partitions))
small = threading.Thread(target=shuffle, args=("small", small_data, partitions))
large.start()
deadline = time.time() + 600
while large.is_alive() and not reading("large", partitions) and time.time() < deadline:
    time.sleep(0.05)
time.sleep(delay)
small.start()
large.join()
small.join()
times = json.loads(spark._jvm.org.apache.spark.shuffle.courier.ShuffleTimes.json())
with open(out, "w") as f:
    json.dump({"jobs": jobs, "shuffles": times}, f)
spark.stop()
