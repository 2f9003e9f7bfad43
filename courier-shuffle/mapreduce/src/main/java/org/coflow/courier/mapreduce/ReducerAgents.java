package org.coflow.courier.mapreduce;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.coflow.api.client.CoflowRegistrar;
import org.coflow.api.proto.v1.FindAgentResponse;
import org.coflow.core.config.Config;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.client.BlockStream;
import org.coflow.courier.client.LocalAgent;
import org.coflow.courier.client.RemoteAgent;
import org.coflow.courier.client.RemoteAgents;
import org.coflow.courier.protocol.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reduce task's glue to the engine-neutral client layer: its node's agent (a {@link LocalAgent}
 * reached at the address {@link CourierShuffleHandler} advertises in the NodeManager's local dirs),
 * and where each map host's agent listens ({@link RemoteAgents}): at the map host and the
 * cluster-wide agent port, or, where that port is 0, as the master's registry says for the map
 * host's shuffle address. Hosts whose agent failed are skipped for a while (their maps go through
 * the stock fetch). Thread-safe; one per reduce task.
 */
public final class ReducerAgents implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReducerAgents.class);

  /**
   * How long a map host whose agent failed (or is unknown) is fetched from with the stock shuffle
   * only.
   */
  static final long SKIP_MILLIS = 30_000;

  /**
   * How long a lookup of a map host's agent waits for the master. The reducer's first call also
   * pays for opening the channel in a fresh JVM: on a loaded 2-core CI machine that alone took 3.9
   * s, and a 5 s deadline sent a host's outputs to the stock fetch. A master that is down refuses
   * the connection at once; only a hung one makes a fetcher wait this long, once per host, before
   * it uses the stock fetch.
   */
  static final long MASTER_DEADLINE_MILLIS = 15_000;

  private final LocalAgent local;
  private final int agentPort;
  private final CoflowRegistrar master;
  private final long window;
  private final RemoteAgents<String> remotes;

  private ReducerAgents(LocalAgent local, int agentPort, CoflowRegistrar master, long window) {
    this.local = local;
    this.agentPort = agentPort;
    this.master = master;
    this.window = window;
    this.remotes = new RemoteAgents<>(this::resolve, SKIP_MILLIS);
  }

  /**
   * The adapter's settings out of a job's or NodeManager's configuration (new and deprecated key
   * names).
   */
  public static Config settings(Configuration conf) {
    return HadoopSettings.of(conf);
  }

  /**
   * Connects to this node's agent, found through {@code taskLocalDirs} (the task's {@code <nm
   * dir>/usercache/<user>/appcache/<app>} dirs); null (logged) when there is none or it cannot be
   * reached: the task then uses the stock shuffle. The task proves to its agent that it holds the
   * job's shuffle secret (identity {@code mr:<job>}), which the NodeManager gave its agent with the
   * job's token.
   */
  public static ReducerAgents connect(
      Config cfg, List<String> taskLocalDirs, String jobId, javax.crypto.SecretKey shuffleSecret) {
    int port = cfg.get(CourierMapReduceConfig.AGENT_PORT);
    String masterAddress = cfg.get(CourierMapReduceConfig.MASTER);
    if (port == 0 && masterAddress.isEmpty()) {
      LOG.warn(
          "Courier: {} is 0 and no {} is set, so map hosts' agents cannot be found; using the stock shuffle",
          CourierMapReduceConfig.AGENT_PORT.key(),
          CourierMapReduceConfig.MASTER.key());
      return null;
    }
    String[] advertised = advertised(taskLocalDirs);
    if (advertised == null) {
      LOG.warn(
          "Courier: no agent is advertised in this node's local dirs ({} in the NodeManager local dir above {}); "
              + "is CourierShuffleHandler the class of mapreduce_shuffle? Using the stock shuffle",
          CourierShuffleHandler.AGENT_FILE,
          taskLocalDirs);
      return null;
    }
    try {
      LocalAgent local =
          LocalAgent.reach(
              advertised[0],
              HostPort.parse(
                  advertised[1], "the agent address in " + CourierShuffleHandler.AGENT_FILE),
              Credentials.of(
                  Credentials.mapReduce(jobId),
                  Secret.ofEngine(shuffleSecret.getEncoded(), "the shuffle secret of " + jobId)));
      return new ReducerAgents(
          local,
          port,
          masterAddress.isEmpty()
              ? null
              : new CoflowRegistrar(
                  masterAddress,
                  MASTER_DEADLINE_MILLIS,
                  org.coflow.courier.CourierConfig.masterCredentials(
                      CourierMapReduceConfig.AGENT_KEYS.agentConfig(cfg))),
          cfg.get(CourierMapReduceConfig.WINDOW));
    } catch (Exception e) {
      LOG.warn(
          "Courier: the node's agent at {} cannot be reached; using the stock shuffle",
          advertised[1],
          e);
      return null;
    }
  }

  /**
   * {host id, address} from the first {@code courier-agent} file above the task's dirs, or null.
   */
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

  /** One map output through this node's agent, as a blocking stream. */
  public BlockStream stream(String coflowId, org.coflow.api.proto.courier.v1.RemoteBlock block) {
    return local.stream(coflowId, block, window);
  }

  /** This node's agent's host id. */
  public String localHostId() {
    return local.hostId();
  }

  /**
   * The agent serving the map outputs of {@code mapHost} (a reducer's {@code host:shufflePort}), or
   * null: the local agent is down, the host is being skipped after a failure, or the master does
   * not know it.
   */
  public RemoteAgent agentOf(String mapHost) {
    if (!local.isAlive()) {
      return null;
    }
    try {
      return remotes.get(mapHost);
    } catch (Exception e) {
      LOG.info(
          "Courier: finding the agent of map host {} failed; fetching from it with the stock shuffle",
          mapHost,
          e);
      remotes.failed(mapHost);
      return null;
    }
  }

  private RemoteAgent resolve(String mapHost) {
    if (agentPort > 0) {
      HostPort shuffle = HostPort.parse(mapHost, "map host");
      return new RemoteAgent(mapHost, HostPort.of(shuffle.host(), agentPort));
    }
    FindAgentResponse r = master.findAgent(mapHost);
    if (r == null) {
      LOG.info(
          "Courier: the master knows no agent for map host {}; fetching from it with the stock shuffle",
          mapHost);
      return null;
    }
    return new RemoteAgent(
        r.getHostId(), HostPort.parse(r.getDataAddress(), "the master's address of " + mapHost));
  }

  /**
   * A fetch through the agent of {@code mapHost} failed: use the stock shuffle for it for a while.
   */
  public void skip(String mapHost) {
    remotes.failed(mapHost);
  }

  @Override
  public void close() {
    local.close();
    if (master != null) {
      master.close();
    }
  }
}
