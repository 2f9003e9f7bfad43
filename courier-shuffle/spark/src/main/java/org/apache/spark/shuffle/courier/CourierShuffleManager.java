package org.apache.spark.shuffle.courier;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.shuffle.sort.SortShuffleManager;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.coflow.api.client.CoflowRegistrar;
import org.coflow.core.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;
import scala.Tuple3;

/**
 * Spark's sort shuffle with reducer fetches going through the Courier agents: {@code --conf
 * spark.shuffle.manager=org.apache.spark.shuffle.courier.CourierShuffleManager}.
 *
 * <p>Map output, {@code MapStatus} and scheduling stay Spark's own (this extends {@link
 * SortShuffleManager}, which is also what Spark 4.3's sealed shuffle manager needs). Each executor
 * serves its shuffle files through an agent (embedded by default) and reports it to the driver; a
 * reduce task asks its agent for the remote blocks with their map-status sizes, tagged with the
 * shuffle's coflow id ({@code <application id>/<shuffle id>}), and reads them like Spark's reader
 * does. Blocks of another executor on the same host are read from its files, as Spark's reader
 * reads them ({@code spark.shuffle.readHostLocalDisk}): they cross no network. If this executor's
 * agent or a remote executor's agent cannot be had, the task reads with Spark's own fetch instead
 * (logged once per executor, counted in {@link #metrics()}).
 */
public class CourierShuffleManager extends SortShuffleManager {
  private static final Logger LOG = LoggerFactory.getLogger(CourierShuffleManager.class);
  private final CourierShuffleMetrics counters = new CourierShuffleMetrics();
  private boolean metricsRegistered;

  private final SparkConf conf;
  private final Config cfg;
  private final boolean enabled;
  private final Object agentLock = new Object();
  private ExecutorAgent agent;

  /** Why the agent could not be had (then every read falls back), or null. */
  private String agentProblem;

  private Throwable problemCause;
  private boolean warned;

  /** Driver with a master configured: tells it when each shuffle (coflow) begins and ends. */
  private final CoflowRegistrar registrar;

  /** Master calls run here, never on Spark's scheduling threads. */
  private final ExecutorService masterCalls;

  /** Spark's preferred constructor (it tries this one first). */
  public CourierShuffleManager(SparkConf conf, boolean isDriver) {
    super(conf);
    this.conf = conf;
    this.cfg = configOf(conf);
    String encryption = sparkEncryption(conf);
    if (cfg.get(CourierSparkConfig.ENABLED) && encryption != null) {
      // The agents move blocks in clear: never a silent downgrade of what Spark was told to do.
      LOG.warn(
          "Courier: Spark encrypts its own shuffle traffic here ({}), and the Courier agents "
              + "would move the same blocks unencrypted; this application uses Spark's own "
              + "shuffle fetch (docs/security.md)",
          encryption);
    }
    this.enabled = cfg.get(CourierSparkConfig.ENABLED) && encryption == null;
    String master = cfg.get(CourierSparkConfig.MASTER);
    if (isDriver && enabled && !master.isEmpty()) {
      registrar =
          new CoflowRegistrar(
              master,
              2_000,
              org.coflow.courier.CourierConfig.masterCredentials(
                  CourierSparkConfig.AGENT_KEYS.agentConfig(cfg)));
      masterCalls =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "courier-coflow-registrar");
                t.setDaemon(true);
                return t;
              });
    } else {
      registrar = null;
      masterCalls = null;
    }
    counters.agent(
        () -> {
          synchronized (agentLock) {
            return agent == null ? null : agent.local();
          }
        });
  }

  public CourierShuffleManager(SparkConf conf) {
    this(conf, "driver".equals(conf.get("spark.executor.id", "")));
  }

  /**
   * The setting by which Spark encrypts block transfers between executors, or null: AES-based RPC
   * encryption ({@code spark.network.crypto.enabled}), SASL encryption ({@code
   * spark.authenticate.enableSaslEncryption}) or TLS for RPC ({@code spark.ssl.rpc.enabled}, Spark
   * 4; {@code spark.ssl.enabled} turns it on with every other module).
   */
  static String sparkEncryption(SparkConf conf) {
    for (String key :
        List.of(
            "spark.network.crypto.enabled",
            "spark.authenticate.enableSaslEncryption",
            "spark.ssl.rpc.enabled",
            "spark.ssl.enabled")) {
      if (conf.getBoolean(key, false)) {
        return key + "=true";
      }
    }
    return null;
  }

  /**
   * The plugin's keys out of {@code conf}; an unknown {@code spark.shuffle.courier.*} key is an
   * error.
   */
  static Config configOf(SparkConf conf) {
    Map<String, String> raw = new HashMap<>();
    for (Tuple2<String, String> kv : conf.getAllWithPrefix(CourierSparkConfig.PREFIX)) {
      raw.put(CourierSparkConfig.PREFIX + kv._1(), kv._2());
    }
    return Config.parse(raw, List.of(CourierSparkConfig.PREFIX), CourierSparkConfig.REGISTRY);
  }

  @Override
  public <K, V, C> ShuffleHandle registerShuffle(
      int shuffleId, ShuffleDependency<K, V, C> dependency) {
    if (enabled) {
      AgentDirectory.startOnDriver(SparkEnv.get());
      if (registrar != null) {
        String id = coflowId(shuffleId);
        String name = conf.get("spark.app.name", "spark") + " shuffle " + shuffleId;
        masterCalls.execute(() -> registrar.register(id, name));
      }
    }
    return super.registerShuffle(shuffleId, dependency);
  }

  @Override
  public <K, V> ShuffleWriter<K, V> getWriter(
      ShuffleHandle handle, long mapId, TaskContext context, ShuffleWriteMetricsReporter metrics) {
    if (enabled) {
      agent(); // this executor's files must be served before any reducer asks for them
    }
    return super.getWriter(handle, mapId, context, metrics);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, C> ShuffleReader<K, C> getReader(
      ShuffleHandle handle,
      int startMapIndex,
      int endMapIndex,
      int startPartition,
      int endPartition,
      TaskContext context,
      ShuffleReadMetricsReporter metrics) {
    // A job can opt out: sc.setLocalProperty("spark.shuffle.courier.enabled", "false").
    boolean forJob =
        !"false".equalsIgnoreCase(context.getLocalProperty(CourierSparkConfig.ENABLED.key()));
    ExecutorAgent a = enabled && forJob ? agent() : null;
    if (a != null && handle instanceof BaseShuffleHandle) {
      CourierBlockFetcher blocks =
          plan(
              a,
              (BaseShuffleHandle<K, ?, C>) handle,
              startMapIndex,
              endMapIndex,
              startPartition,
              endPartition,
              context,
              metrics);
      if (blocks != null) {
        counters.readThroughAgents();
        counters.batched(blocks.batchedRuns());
        return new CourierShuffleReader<>(
            (BaseShuffleHandle<K, ?, C>) handle,
            blocks,
            context,
            metrics,
            SparkEnv.get().serializerManager());
      }
    }
    return super.getReader(
        handle, startMapIndex, endMapIndex, startPartition, endPartition, context, metrics);
  }

  /** The task's blocks, each remote one with its executor's agent; null if an agent is unknown. */
  private CourierBlockFetcher plan(
      ExecutorAgent a,
      BaseShuffleHandle<?, ?, ?> handle,
      int startMapIndex,
      int endMapIndex,
      int startPartition,
      int endPartition,
      TaskContext context,
      ShuffleReadMetricsReporter metrics) {
    SparkEnv env = SparkEnv.get();
    int shuffleId = handle.shuffleId();
    List<CourierBlockFetcher.Remote> remote = new ArrayList<>();
    List<CourierBlockFetcher.Remote> local = new ArrayList<>();
    scala.collection.Iterator<
            Tuple2<BlockManagerId, scala.collection.Seq<Tuple3<BlockId, Object, Object>>>>
        byHost =
            env.mapOutputTracker()
                .getMapSizesByExecutorId(
                    shuffleId, startMapIndex, endMapIndex, startPartition, endPartition);
    String self = env.blockManager().blockManagerId().executorId();
    while (byHost.hasNext()) {
      Tuple2<BlockManagerId, scala.collection.Seq<Tuple3<BlockId, Object, Object>>> entry =
          byHost.next();
      BlockManagerId location = entry._1();
      boolean isLocal = location.executorId().equals(self);
      // Another executor on this host: read its files from disk, as Spark's reader does.
      String[] dirs =
          isLocal
              ? null
              : HostLocalDirs.of(
                  env.blockManager(), location, cfg.get(CourierSparkConfig.FETCH_TIMEOUT));
      org.coflow.courier.client.RemoteAgent info = null;
      if (!isLocal && dirs == null) {
        try {
          info = a.agentOf(location.executorId());
        } catch (Exception e) {
          fallback(
              "looking up the agent of executor " + location.executorId() + " failed: " + e, e);
          return null;
        }
        if (info == null) {
          fallback("executor " + location.executorId() + " reported no Courier agent");
          return null;
        }
      }
      scala.collection.Iterator<Tuple3<BlockId, Object, Object>> it = entry._2().iterator();
      while (it.hasNext()) {
        Tuple3<BlockId, Object, Object> b = it.next();
        if (!(b._1() instanceof ShuffleBlockId)) {
          fallback("block " + b._1() + " is not a plain shuffle block");
          return null;
        }
        CourierBlockFetcher.Remote r =
            new CourierBlockFetcher.Remote(
                location, (ShuffleBlockId) b._1(), (Long) b._2(), (Integer) b._3(), info, dirs);
        (isLocal || dirs != null ? local : remote).add(r);
        if (dirs != null) {
          counters.readFromHostDisk();
        }
      }
    }
    // AQE marks the tasks whose consecutive partitions may be read as one stream per map output.
    boolean batch =
        org.apache.spark.shuffle.sort.SortShuffleManager$.MODULE$.canUseBatchFetch(
            startPartition, endPartition, context);
    return new CourierBlockFetcher(
        a,
        coflowId(shuffleId),
        env.blockManager(),
        context,
        metrics,
        shuffleId,
        remote,
        local,
        batch,
        cfg);
  }

  @Override
  public boolean unregisterShuffle(int shuffleId) {
    if (registrar != null) {
      String id = coflowId(shuffleId);
      masterCalls.execute(() -> registrar.unregister(id));
    }
    return super.unregisterShuffle(shuffleId);
  }

  /** The coflow of a shuffle: {@code <application id>/<shuffle id>}. */
  private String coflowId(int shuffleId) {
    return conf.getAppId() + "/" + shuffleId;
  }

  /** This executor's agent, started on first use; null (and logged once) if it cannot be had. */
  private ExecutorAgent agent() {
    synchronized (agentLock) {
      if (agent != null && !agent.isAlive()) {
        LOG.warn(
            "Courier: the agent of executor {} went away; starting it again", agent.executorId);
        agent.close();
        counters.retire(agent.local());
        agent = null;
      }
      if (agent == null && agentProblem == null) {
        registerMetrics();
        try {
          agent = ExecutorAgent.start(SparkEnv.get(), cfg);
        } catch (Exception e) {
          agentProblem = "no Courier agent for executor " + SparkEnv.get().executorId() + ": " + e;
          problemCause = e;
        }
      }
      if (agent == null) {
        fallback(agentProblem, problemCause);
      }
      return agent;
    }
  }

  private void fallback(String why) {
    fallback(why, null);
  }

  private void fallback(String why, Throwable cause) {
    counters.fellBack();
    synchronized (agentLock) {
      if (!warned) {
        warned = true;
        LOG.warn(
            "Courier: {}; reading shuffles with Spark's own fetch (logged once per executor)",
            why,
            cause);
      }
    }
  }

  /** Reports {@link #metrics()} through Spark's metrics system, once its environment exists. */
  private void registerMetrics() {
    SparkEnv env = SparkEnv.get();
    if (!metricsRegistered && env != null) {
      metricsRegistered = true;
      env.metricsSystem().registerSource(counters);
    }
  }

  /**
   * Stops this executor's agent as if it had crashed (its address stays with the driver until the
   * executor starts a new one on its next shuffle read or write, which it does by itself).
   *
   * @return whether an agent was running
   */
  public boolean stopAgent() {
    synchronized (agentLock) {
      if (agent == null || !agent.isAlive()) {
        return false;
      }
      agent.close();
      return true;
    }
  }

  /**
   * What this JVM's shuffle reads did (also reported as Spark's metrics source {@code
   * CourierShuffle}).
   */
  public CourierShuffleMetrics metrics() {
    return counters;
  }

  @Override
  public void stop() {
    synchronized (agentLock) {
      if (agent != null) {
        agent.close();
        counters.retire(agent.local());
        agent = null;
      }
    }
    AgentDirectory.stopOnDriver(SparkEnv.get());
    if (registrar != null) {
      masterCalls.shutdown();
      try {
        masterCalls.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      registrar.close();
    }
    super.stop();
  }
}
