package org.apache.spark.shuffle.courier;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.rpc.RpcEndpointRef;
import org.apache.spark.storage.BlockManager;
import org.coflow.api.config.Config;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.enforce.LinkRate;
import org.coflow.courier.fetch.CourierClient;
import org.coflow.courier.merge.CourierConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An executor's side of Courier: its agent (embedded, or the host's own), a client connection to
 * it over which the executor's shuffle directories are registered, the report of the agent's
 * address to the driver, and a cache of the other executors' agents.
 */
final class ExecutorAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorAgent.class);

  final String executorId;
  final String hostId;
  final String appId;
  /** Null when the host runs its own agent. */
  private final CourierAgent embedded;
  private final NioEventLoopGroup group;
  final CourierClient client;
  /** The executor's local directories (fetched blocks too big for memory go there). */
  final List<String> localDirs;
  private final RpcEndpointRef driver;
  private final Map<String, AgentDirectory.AgentInfo> agents = new ConcurrentHashMap<>();
  private boolean closed;

  private ExecutorAgent(String executorId, String hostId, String appId, CourierAgent embedded,
      NioEventLoopGroup group, CourierClient client, List<String> localDirs, RpcEndpointRef driver) {
    this.executorId = executorId;
    this.hostId = hostId;
    this.appId = appId;
    this.embedded = embedded;
    this.group = group;
    this.client = client;
    this.localDirs = localDirs;
    this.driver = driver;
  }

  /** Starts or reaches this executor's agent, registers its shuffle files, tells the driver. */
  static ExecutorAgent start(SparkEnv env, Config cfg) throws Exception {
    SparkConf conf = env.conf();
    BlockManager bm = env.blockManager();
    String executorId = env.executorId();
    String host = bm.blockManagerId().host();
    String appId = conf.getAppId();
    String agentSetting = cfg.get(CourierSparkConfig.AGENT);
    CourierAgent embedded = null;
    String hostId;
    InetSocketAddress address;
    if ("embedded".equals(agentSetting)) {
      hostId = executorId;
      String master = cfg.get(CourierSparkConfig.MASTER);
      double bytesPerSecond = cfg.get(CourierSparkConfig.LINK_RATE); // the type parses bit rates into bytes/s
      LinkRate link = LinkRate.withSlack(bytesPerSecond, CourierAgent.CHUNK_SIZE);
      embedded = CourierAgent.start(hostId, new InetSocketAddress(host, 0), 2, link,
          master.isEmpty() ? null : master, List.of(), CourierConfig.MAX_NUM.defaultValue(),
          CourierConfig.MIN_SIZE.defaultValue());
      address = embedded.address();
    } else {
      hostId = host;
      address = parseAddress(agentSetting);
    }
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    CourierClient client = null;
    try {
      client = CourierClient.connect(group, address, hostId);
      List<String> dirs = Arrays.asList(bm.diskBlockManager().localDirsString());
      boolean checksums = conf.getBoolean("spark.shuffle.checksum.enabled", true);
      client.register(RegisterSpark.newBuilder().setAppId(appId).setExecId(executorId).addAllLocalDirs(dirs)
          .setSubDirsPerLocalDir(bm.diskBlockManager().subDirsPerLocalDir())
          .setChecksumAlgorithm(checksums ? conf.get("spark.shuffle.checksum.algorithm", "ADLER32") : "")
          .build()).get(30, TimeUnit.SECONDS);
      RpcEndpointRef driver = AgentDirectory.driver(env);
      String reported = address.getHostString() + ":" + address.getPort();
      AgentDirectory.register(driver, new AgentDirectory.AgentInfo(executorId, hostId, reported));
      LOG.info("Courier: executor {} serves its shuffle files through the agent of host {} at {}{}", executorId,
          hostId, reported, embedded != null ? " (embedded)" : "");
      return new ExecutorAgent(executorId, hostId, appId, embedded, group, client, dirs, driver);
    } catch (Exception | Error e) {
      if (client != null) {
        client.close();
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      if (embedded != null) {
        embedded.close();
      }
      throw e;
    }
  }

  /** The agent serving {@code executorId}'s files, asked of the driver once; null if it has none. */
  AgentDirectory.AgentInfo agentOf(String executorId) {
    AgentDirectory.AgentInfo a = agents.get(executorId);
    if (a == null) {
      a = AgentDirectory.lookup(driver, executorId);
      if (a != null) {
        agents.put(executorId, a);
      }
    }
    return a;
  }

  /** Forgets the cached agent of {@code executorId} (a fetch from it failed: it may have moved). */
  void forget(String executorId) {
    agents.remove(executorId);
  }

  /**
   * The agent of {@code executorId} at {@code address} refused connections: forgets it here and
   * in the driver, so that until the executor reports a live agent, reads from it fall back to
   * Spark's own fetch (its block manager still serves).
   */
  void unreachable(String executorId, String address) {
    agents.remove(executorId);
    try {
      AgentDirectory.unreachable(driver, executorId, address);
    } catch (RuntimeException e) {
      LOG.debug("Courier: telling the driver that {} is unreachable failed: {}", address, e.toString());
    }
  }

  /** Whether the connection to the agent is up (an embedded agent that was stopped is not). */
  boolean isAlive() {
    return client.isOpen() && (embedded == null || !embedded.isClosed());
  }

  /**
   * Fetches blocks through the agent: in-process when it is embedded (no loopback connection, no
   * second framing of every byte), else over the client connection.
   */
  java.util.List<java.util.concurrent.CompletableFuture<Long>> fetchBlocks(String coflowId,
      java.util.List<org.coflow.api.proto.courier.v1.RemoteBlock> blocks, CourierClient.BlockConsumer consumer,
      long window) {
    return embedded != null ? embedded.fetchBlocks(coflowId, blocks, consumer)
        : client.fetchBlocks(coflowId, blocks, consumer, window);
  }

  /** Bytes the embedded agent fetched from other agents (0 with the host's own agent). */
  long bytesFetchedFromPeers() {
    return embedded == null ? 0 : embedded.bytesFetchedFromPeers();
  }

  static InetSocketAddress parseAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException(CourierSparkConfig.AGENT.key() + " '" + hostPort
          + "' is neither 'embedded' nor host:port");
    }
    try {
      return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(CourierSparkConfig.AGENT.key() + " '" + hostPort
          + "': not a valid host:port (" + e.getMessage() + ")");
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    client.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    if (embedded != null) {
      embedded.close();
    }
  }
}
