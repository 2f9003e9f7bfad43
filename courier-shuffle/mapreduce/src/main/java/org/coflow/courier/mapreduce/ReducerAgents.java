package org.coflow.courier.mapreduce;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.coflow.api.client.CoflowRegistrar;
import org.coflow.api.config.Config;
import org.coflow.api.proto.v1.FindAgentResponse;
import org.coflow.courier.fetch.CourierClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reduce task's view of the agents: a connection to its own node's agent (named in the
 * NodeManager's local dirs by {@link CourierShuffleHandler}), and where each map host's agent
 * listens: at the map host and the cluster-wide agent port, or, where that port is 0, as the
 * master's registry says for the map host's shuffle address. Hosts whose agent failed are skipped
 * for a while (their maps go through the stock fetch). Thread-safe; one per reduce task.
 */
public final class ReducerAgents implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReducerAgents.class);
  /** How long a map host whose agent failed is fetched from with the stock shuffle only. */
  static final long SKIP_MILLIS = 30_000;

  /** A map host's agent. */
  public static final class Agent {
    public final String hostId;
    public final String address;

    Agent(String hostId, String address) {
      this.hostId = hostId;
      this.address = address;
    }
  }

  private final NioEventLoopGroup group;
  private final CourierClient client;
  private final String localHostId;
  private final int agentPort;
  private final CoflowRegistrar master;
  private final long window;
  private final Map<String, Agent> agents = new ConcurrentHashMap<>();
  private final Map<String, Long> skipUntil = new ConcurrentHashMap<>();

  private ReducerAgents(NioEventLoopGroup group, CourierClient client, String localHostId, int agentPort,
      CoflowRegistrar master, long window) {
    this.group = group;
    this.client = client;
    this.localHostId = localHostId;
    this.agentPort = agentPort;
    this.master = master;
    this.window = window;
  }

  /**
   * How long a lookup of a map host's agent waits for the master. The reducer's first call also
   * pays for opening the channel in a fresh JVM: on a loaded 2-core CI machine that alone took
   * 3.9 s, and a 5 s deadline sent a host's outputs to the stock fetch. A master that is down
   * refuses the connection at once; only a hung one makes a fetcher wait this long, once per
   * host, before it uses the stock fetch.
   */
  static final long MASTER_DEADLINE_MILLIS = 15_000;

  /**
   * Connects to this node's agent, found through {@code taskLocalDirs} (the task's
   * {@code <nm dir>/usercache/<user>/appcache/<app>} dirs); null (logged) when there is none or
   * it cannot be reached: the task then uses the stock shuffle.
   */
  public static ReducerAgents connect(Config cfg, List<String> taskLocalDirs) {
    int port = cfg.get(CourierMapReduceConfig.AGENT_PORT);
    String masterAddress = cfg.get(CourierMapReduceConfig.MASTER);
    if (port == 0 && masterAddress.isEmpty()) {
      LOG.warn("Courier: {} is 0 and no {} is set, so map hosts' agents cannot be found; using the stock shuffle",
          CourierMapReduceConfig.AGENT_PORT.key(), CourierMapReduceConfig.MASTER.key());
      return null;
    }
    String[] local = advertised(taskLocalDirs);
    if (local == null) {
      LOG.warn("Courier: no agent is advertised in this node's local dirs ({} in the NodeManager local dir above {}); "
          + "is CourierShuffleHandler the class of mapreduce_shuffle? Using the stock shuffle",
          CourierShuffleHandler.AGENT_FILE, taskLocalDirs);
      return null;
    }
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try {
      CourierClient client = CourierClient.connect(group, parse(local[1]), local[0]);
      return new ReducerAgents(group, client, local[0], port,
          masterAddress.isEmpty() ? null : new CoflowRegistrar(masterAddress, MASTER_DEADLINE_MILLIS),
          cfg.get(CourierMapReduceConfig.WINDOW));
    } catch (Exception e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      LOG.warn("Courier: the node's agent at {} cannot be reached ({}); using the stock shuffle", local[1], e.toString());
      return null;
    }
  }

  /** {host id, address} from the first {@code courier-agent} file above the task's dirs, or null. */
  static String[] advertised(List<String> taskLocalDirs) {
    for (String d : taskLocalDirs) {
      // <nm dir>/usercache/<user>/appcache/<app>
      Path nmDir = Path.of(d).toAbsolutePath().normalize();
      for (int i = 0; i < 4 && nmDir != null; i++) {
        nmDir = nmDir.getParent();
      }
      if (nmDir == null) {
        continue;
      }
      Path f = nmDir.resolve(CourierShuffleHandler.AGENT_FILE);
      try {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        if (lines.size() >= 2 && !lines.get(0).isEmpty() && !lines.get(1).isEmpty()) {
          return new String[] {lines.get(0).trim(), lines.get(1).trim()};
        }
      } catch (IOException e) {
        // not here; try the next dir
      }
    }
    return null;
  }

  static InetSocketAddress parse(String hostPort) {
    return org.coflow.courier.fetch.FetchService.parse(hostPort);
  }

  public CourierClient client() {
    return client;
  }

  public long window() {
    return window;
  }

  /** This node's agent's host id. */
  public String localHostId() {
    return localHostId;
  }

  /**
   * The agent serving the map outputs of {@code mapHost} (a reducer's {@code host:shufflePort}),
   * or null: the local agent is down, the host is being skipped after a failure, or the master
   * does not know it.
   */
  public Agent agentOf(String mapHost) {
    if (!client.isOpen()) {
      return null;
    }
    Long until = skipUntil.get(mapHost);
    if (until != null) {
      if (System.currentTimeMillis() < until) {
        return null;
      }
      skipUntil.remove(mapHost);
    }
    Agent a = agents.get(mapHost);
    if (a != null) {
      return a;
    }
    if (agentPort > 0) {
      int colon = mapHost.lastIndexOf(':');
      a = new Agent(mapHost, (colon > 0 ? mapHost.substring(0, colon) : mapHost) + ":" + agentPort);
    } else {
      FindAgentResponse r = master.findAgent(mapHost);
      if (r == null) {
        LOG.info("Courier: the master knows no agent for map host {}; fetching from it with the stock shuffle", mapHost);
        skip(mapHost);
        return null;
      }
      a = new Agent(r.getHostId(), r.getDataAddress());
    }
    agents.put(mapHost, a);
    return a;
  }

  /** A fetch through the agent of {@code mapHost} failed: use the stock shuffle for it for a while. */
  public void skip(String mapHost) {
    agents.remove(mapHost);
    skipUntil.put(mapHost, System.currentTimeMillis() + SKIP_MILLIS);
  }

  @Override
  public void close() {
    client.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    if (master != null) {
      master.close();
    }
  }
}
