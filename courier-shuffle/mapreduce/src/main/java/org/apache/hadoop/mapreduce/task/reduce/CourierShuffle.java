package org.apache.hadoop.mapreduce.task.reduce;

import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.Progress;
import org.coflow.core.config.Config;
import org.coflow.courier.mapreduce.CourierMapReduceConfig;
import org.coflow.courier.mapreduce.ReducerAgents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reducers' side of Courier for MapReduce, set as {@code
 * mapreduce.job.reduce.shuffle.consumer.plugin.class}. It runs Hadoop's own machinery (the
 * map-completion event fetcher, {@link ShuffleSchedulerImpl}, {@link MergeManagerImpl}: merge,
 * spill, combiner and codec are Hadoop's) with {@link CourierFetcher}s that ask this node's agent
 * for each map output, the job being one coflow. Without a reachable agent, for local (uber) runs,
 * or with {@code mapreduce.shuffle.courier.enabled=false}, it is exactly Hadoop's {@link Shuffle}.
 *
 * <p>It lives in Hadoop's package because {@link EventFetcher} and {@link ShuffleError}'s
 * constructor are package-private there.
 */
public class CourierShuffle<K, V> implements ShuffleConsumerPlugin<K, V>, ExceptionReporter {
  private static final Logger LOG = LoggerFactory.getLogger(CourierShuffle.class);

  /** The counter group reducers report to (visible in the job's counters). */
  public static final String COUNTERS = "Courier shuffle";

  public static final String MAPS_VIA_AGENT = "Map outputs fetched through the agents";
  public static final String BYTES_VIA_AGENT = "Bytes fetched through the agents";
  public static final String MAPS_VIA_STOCK =
      "Map outputs fetched with the stock shuffle (fallback)";

  private static final int PROGRESS_MILLIS = 2000;

  /** Set when this task runs as Hadoop's own shuffle. */
  private Shuffle<K, V> stock;

  private TaskAttemptID reduceId;
  private JobConf jobConf;
  private TaskUmbilicalProtocol umbilical;
  private Reporter reporter;
  private ShuffleClientMetrics metrics;
  private ShuffleSchedulerImpl<K, V> scheduler;
  private MergeManager<K, V> merger;
  private Progress copyPhase;
  private TaskStatus taskStatus;
  private Task reduceTask;
  private ReducerAgents agents;
  private Throwable throwable;
  private String throwingThreadName;

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void init(ShuffleConsumerPlugin.Context context) {
    JobConf conf = context.getJobConf();
    Config cfg = ReducerAgents.settings(conf);
    boolean encrypted = conf.getBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, false);
    boolean ssl =
        conf.getBoolean(org.apache.hadoop.mapreduce.MRConfig.SHUFFLE_SSL_ENABLED_KEY, false);
    if (cfg.get(CourierMapReduceConfig.ENABLED) && (encrypted || ssl)) {
      // The agents move bytes in the clear and check IFile checksums of unencrypted segments.
      LOG.info(
          "Courier: {} is on, so this job's shuffle stays Hadoop's own",
          encrypted ? MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA : "mapreduce.shuffle.ssl.enabled");
    } else if (context.getLocalMapFiles() == null && cfg.get(CourierMapReduceConfig.ENABLED)) {
      try {
        agents =
            ReducerAgents.connect(
                cfg,
                Arrays.asList(conf.getLocalDirs()),
                context.getReduceId().getJobID().toString(),
                context.getReduceTask().getShuffleSecret());
      } catch (IOException e) {
        LOG.warn(
            "Courier: the task's local dirs are not known ({}); using the stock shuffle",
            e.toString());
      }
    }
    if (agents == null) {
      stock = new Shuffle<>();
      stock.init(context);
      return;
    }
    reduceId = context.getReduceId();
    jobConf = conf;
    umbilical = context.getUmbilical();
    reporter = context.getReporter();
    metrics = ShuffleClientMetrics.create(reduceId, jobConf);
    copyPhase = context.getCopyPhase();
    taskStatus = context.getStatus();
    reduceTask = context.getReduceTask();
    scheduler =
        new ShuffleSchedulerImpl<>(
            jobConf,
            taskStatus,
            reduceId,
            this,
            copyPhase,
            context.getShuffledMapsCounter(),
            context.getReduceShuffleBytes(),
            context.getFailedShuffleCounter());
    merger =
        new MergeManagerImpl<K, V>(
            reduceId,
            jobConf,
            context.getLocalFS(),
            context.getLocalDirAllocator(),
            reporter,
            context.getCodec(),
            context.getCombinerClass(),
            context.getCombineCollector(),
            context.getSpilledRecordsCounter(),
            context.getReduceCombineInputCounter(),
            context.getMergedMapOutputsCounter(),
            this,
            context.getMergePhase(),
            context.getMapOutputFile());
    LOG.info(
        "Courier: {} fetches its map outputs through the agent of {}",
        reduceId,
        agents.localHostId());
  }

  @Override
  public RawKeyValueIterator run() throws IOException, InterruptedException {
    if (stock != null) {
      return stock.run();
    }
    // As Hadoop's Shuffle: fewer events per call the more reducers ask the AM.
    int maxEvents =
        Math.min(10_000, Math.max(100, 3_000_000 / Math.max(1, jobConf.getNumReduceTasks())));
    EventFetcher<K, V> events = new EventFetcher<>(reduceId, umbilical, scheduler, this, maxEvents);
    events.start();
    int n = jobConf.getInt(MRJobConfig.SHUFFLE_PARALLEL_COPIES, 5);
    CourierFetcher<K, V>[] fetchers = new CourierFetcher[n];
    for (int i = 0; i < n; i++) {
      fetchers[i] =
          new CourierFetcher<>(
              jobConf,
              reduceId,
              scheduler,
              merger,
              reporter,
              metrics,
              this,
              reduceTask.getShuffleSecret(),
              agents);
      fetchers[i].start();
    }
    try {
      while (!scheduler.waitUntilDone(PROGRESS_MILLIS)) {
        reporter.progress();
        rethrow();
      }
    } finally {
      events.shutDown();
      for (CourierFetcher<K, V> f : fetchers) {
        f.shutDown();
      }
      scheduler.close();
    }
    copyPhase.complete();
    taskStatus.setPhase(TaskStatus.Phase.SORT);
    reduceTask.statusUpdate(umbilical);
    RawKeyValueIterator kv;
    try {
      kv = merger.close();
    } catch (Throwable e) {
      throw new Shuffle.ShuffleError("error in the final merge", e);
    }
    rethrow();
    return kv;
  }

  private synchronized void rethrow() throws Shuffle.ShuffleError {
    if (throwable != null) {
      throw new Shuffle.ShuffleError("error in shuffle in " + throwingThreadName, throwable);
    }
  }

  @Override
  public void close() {
    if (stock != null) {
      stock.close();
    }
    if (agents != null) {
      agents.close();
    }
  }

  @Override
  public synchronized void reportException(Throwable t) {
    if (throwable == null) {
      throwable = t;
      throwingThreadName = Thread.currentThread().getName();
      synchronized (scheduler) {
        scheduler.notifyAll();
      }
    }
  }
}
