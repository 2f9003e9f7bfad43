package org.apache.spark.shuffle.courier;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.rpc.RpcEndpointRef;
import org.apache.spark.storage.BlockManager;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.core.config.Config;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.client.LocalAgent;
import org.coflow.courier.client.RemoteAgent;
import org.coflow.courier.client.RemoteAgents;
import org.coflow.courier.fetch.BlockConsumer;
import org.coflow.courier.protocol.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An executor's glue to the engine-neutral client layer: its {@link LocalAgent} (embedded, or the
 * host's own), the registration of its shuffle directories, the report of its agent to the driver,
 * and the other executors' agents, looked up at the driver ({@link RemoteAgents}).
 */
final class ExecutorAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorAgent.class);

  final String executorId;
  final String appId;
  private final LocalAgent agent;

  /** The executor's local directories (fetched blocks too big for memory go there). */
  final List<String> localDirs;

  private final RpcEndpointRef driver;

  /**
   * By executor id; a failed executor's agent is looked up again at once (Spark retries the stage).
   */
  private final RemoteAgents<String> remotes;

  private ExecutorAgent(
      String executorId,
      String appId,
      LocalAgent agent,
      List<String> localDirs,
      RpcEndpointRef driver) {
    this.executorId = executorId;
    this.appId = appId;
    this.agent = agent;
    this.localDirs = localDirs;
    this.driver = driver;
    this.remotes = new RemoteAgents<>(this::lookup, 0);
  }

  /** Starts or reaches this executor's agent, registers its shuffle files, tells the driver. */
  static ExecutorAgent start(SparkEnv env, Config cfg) throws Exception {
    SparkConf conf = env.conf();
    BlockManager bm = env.blockManager();
    String executorId = env.executorId();
    String host = bm.blockManagerId().host();
    String appId = conf.getAppId();
    String setting = cfg.get(CourierSparkConfig.AGENT);
    LocalAgent agent;
    List<String> dirs = Arrays.asList(bm.diskBlockManager().localDirsString());
    AgentOptions options =
        AgentOptions.forHost(executorId)
            .bind(new InetSocketAddress(host, 0))
            .config(CourierSparkConfig.AGENT_KEYS.agentConfig(cfg))
            .set(CourierConfig.LINK_RATE, cfg.get(CourierSparkConfig.LINK_RATE))
            .set(CourierConfig.MASTER, cfg.get(CourierSparkConfig.MASTER));
    Credentials app = applicationCredentials(env);
    if (app != null) {
      // spark.authenticate: the application's members (its executors' agents) prove its secret.
      options.credentials(app);
    }
    if ("embedded".equals(setting)) {
      // Every executor is its own host (host id = executor id), so cross-executor reads cross
      // agents. Its agent serves the executor's block-manager dirs, and nothing else.
      List<Path> roots = new ArrayList<>();
      for (String d : dirs) {
        roots.add(Path.of(d));
      }
      agent = LocalAgent.embed(options.roots(roots));
    } else {
      // The host's standalone agent knows the cluster secret (spark.shuffle.courier.secretFile).
      agent = LocalAgent.reach(host, parseAgent(setting, host), options.clusterCredentials());
    }
    try {
      boolean checksums = conf.getBoolean("spark.shuffle.checksum.enabled", true);
      agent
          .register(
              RegisterSpark.newBuilder()
                  .setAppId(appId)
                  .setExecId(executorId)
                  .addAllLocalDirs(dirs)
                  .setSubDirsPerLocalDir(bm.diskBlockManager().subDirsPerLocalDir())
                  .setChecksumAlgorithm(
                      checksums ? conf.get("spark.shuffle.checksum.algorithm", "ADLER32") : "")
                  .build())
          .get(30, TimeUnit.SECONDS);
      RpcEndpointRef driver = AgentDirectory.driver(env);
      String reported = agent.address().toString();
      AgentDirectory.register(
          driver, new AgentDirectory.AgentInfo(executorId, agent.hostId(), reported));
      LOG.info(
          "Courier: executor {} serves its shuffle files through the agent of host {} at {}{}",
          executorId,
          agent.hostId(),
          reported,
          agent.embedded() != null ? " (embedded)" : "");
      return new ExecutorAgent(executorId, appId, agent, dirs, driver);
    } catch (Exception | Error e) {
      agent.close();
      throw e;
    }
  }

  /** The application's secret as agent credentials with {@code spark.authenticate}, else null. */
  private static Credentials applicationCredentials(SparkEnv env) {
    if (!env.conf().getBoolean("spark.authenticate", false)) {
      return null;
    }
    String secret = env.securityManager().getSecretKey();
    if (secret == null || secret.isEmpty()) {
      throw new IllegalStateException(
          "spark.authenticate is on but this executor has no application secret");
    }
    return Credentials.of(
        Credentials.spark(env.conf().getAppId()),
        Secret.of(
            secret.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            "the secret of application " + env.conf().getAppId()));
  }

  /**
   * The host agent {@code setting} names: {@code host:port}, or a port alone for the agent at that
   * port on the executor's own host ({@code host}, its block-manager address), so that one setting
   * serves every executor of a cluster whose machines each run an agent on the same port.
   */
  static HostPort parseAgent(String setting, String host) {
    String what = CourierSparkConfig.AGENT.key() + " (neither 'embedded', a port nor host:port)";
    if (setting.matches("\\d{1,5}")) {
      return HostPort.parse(host + ":" + setting, what);
    }
    return HostPort.parse(setting, what);
  }

  private RemoteAgent lookup(String executor) {
    AgentDirectory.AgentInfo a = AgentDirectory.lookup(driver, executor);
    return a == null
        ? null
        : new RemoteAgent(a.hostId, HostPort.parse(a.address, "the agent of executor " + executor));
  }

  /**
   * The agent serving {@code executorId}'s files, asked of the driver once; null if it has none.
   */
  RemoteAgent agentOf(String executorId) throws Exception {
    return remotes.get(executorId);
  }

  /**
   * A fetch from {@code executorId}'s agent failed: ask the driver again next time (it may have
   * moved).
   */
  void failed(String executorId) {
    remotes.failed(executorId);
  }

  /**
   * The agent of {@code executorId} at {@code address} refused connections: forgets it here and in
   * the driver, so that until the executor reports a live agent, reads from it fall back to Spark's
   * own fetch (its block manager still serves).
   */
  void unreachable(String executorId, HostPort address) {
    remotes.failed(executorId);
    try {
      AgentDirectory.unreachable(driver, executorId, address.toString());
    } catch (RuntimeException e) {
      LOG.debug("Courier: telling the driver that {} is unreachable failed", address, e);
    }
  }

  /** Whether the agent can still be used (an embedded agent that was stopped cannot). */
  boolean isAlive() {
    return agent.isAlive();
  }

  List<CompletableFuture<Long>> fetchBlocks(
      String coflowId, List<RemoteBlock> blocks, BlockConsumer consumer, long window) {
    return agent.fetchBlocks(coflowId, blocks, consumer, window);
  }

  /** This executor's way to its agent. */
  LocalAgent local() {
    return agent;
  }

  @Override
  public void close() {
    agent.close();
  }
}
