package org.coflow.courier.mapreduce;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.core.config.Config;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.KeyRing;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.protocol.BlockSetId;
import org.coflow.courier.protocol.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NodeManager's shuffle service with a Courier agent inside: configured as the class of {@code
 * mapreduce_shuffle}, it is Hadoop's own {@link ShuffleHandler} (same port, same HTTP protocol: the
 * stock fetch and every fallback keep working) and also hosts this NodeManager's agent, which
 * serves the same map outputs to other agents, verified with the same job token.
 *
 * <p>Why a subclass and not a second aux service: YARN hands the job token (the shuffle secret)
 * only to {@code mapreduce_shuffle}; any other service listed in {@code
 * mapreduce.job.shuffle.provider.services} is initialised with empty data (Hadoop 3.4's {@code
 * TaskAttemptImpl}), and could not learn this NodeManager's shuffle port either.
 *
 * <p>The agent's host id is the NodeManager's shuffle address ({@code host:port}, what reducers
 * call the map host); it listens on {@code mapreduce.shuffle.courier.agent.port}, reports to the
 * master if one is set, and writes its address into {@code <local dir>/courier-agent} of every
 * NodeManager local dir, where this node's reducers find it without any master. A failure to start
 * the agent is logged and leaves the stock shuffle running: jobs fall back to it.
 */
public class CourierShuffleHandler extends ShuffleHandler {
  private static final Logger LOG = LoggerFactory.getLogger(CourierShuffleHandler.class);

  /**
   * The file, in each NodeManager local dir, that names the node's agent ("host id\naddress\n").
   */
  public static final String AGENT_FILE = "courier-agent";

  private volatile CourierAgent agent;

  /** The secrets this node's agent accepts: the cluster's (if set), and each running job's. */
  private KeyRing keys;

  private List<String> localDirs = List.of();
  private String hostId;
  private int shufflePort;

  @Override
  protected void serviceStart() throws Exception {
    super.serviceStart();
    Configuration conf = getConfig();
    shufflePort = conf.getInt(SHUFFLE_PORT_CONFIG_KEY, DEFAULT_SHUFFLE_PORT);
    localDirs = List.of(conf.getTrimmedStrings("yarn.nodemanager.local-dirs"));
    CourierAgent started = null;
    try {
      Config cfg = HadoopSettings.of(conf);
      String host = nodeHost(conf);
      hostId = HostPort.of(host, shufflePort).toString();
      String master = cfg.get(CourierMapReduceConfig.MASTER);
      int port = cfg.get(CourierMapReduceConfig.AGENT_PORT);
      // A fixed port listens on every interface, as the stock shuffle does; port 0 (several
      // NodeManagers on one machine) binds the node's host, the address the master then hands out.
      InetSocketAddress bind =
          port > 0 ? new InetSocketAddress(port) : new InetSocketAddress(host, 0);
      AgentOptions options =
          AgentOptions.forHost(hostId)
              .bind(bind)
              .config(CourierMapReduceConfig.AGENT_KEYS.agentConfig(cfg))
              .set(CourierConfig.LINK_RATE, cfg.get(CourierMapReduceConfig.LINK_RATE))
              .set(CourierConfig.MASTER, master)
              .engineAddress(hostId)
              // It serves the NodeManager's local dirs; only this NodeManager, which holds the
              // jobs' tokens, registers map outputs (in-process: the default).
              .roots(existingPaths(localDirs));
      Credentials cluster = options.credentials();
      keys =
          cluster.present()
              ? KeyRing.closed().add(cluster.identity(), cluster.secret())
              // Other hosts' agents as the stock shuffle serves them; clients only with a job's
              // token.
              : KeyRing.open().refuseAnonymousClients();
      started = CourierAgent.start(options.keys(keys));
      agent = started;
      advertise();
      LOG.info(
          "Courier agent of NodeManager {} listening on port {} (master: {})",
          hostId,
          agent.address().getPort(),
          master.isEmpty() ? "none" : master);
    } catch (Exception | LinkageError e) {
      // The stock shuffle is up; without an agent, reducers fall back to it.
      LOG.error(
          "Courier agent of NodeManager {} did not start ({}); reducers will use the stock shuffle",
          hostId,
          e.getMessage(),
          e);
      agent = null;
      if (started != null) {
        started.close();
      }
    }
  }

  /**
   * The host reducers call this node by: the NodeManager's web address host, else this machine's
   * name.
   */
  static String nodeHost(Configuration conf) throws IOException {
    String web = conf.getTrimmed("yarn.nodemanager.webapp.address", "");
    int colon = web.lastIndexOf(':');
    String host = colon > 0 ? web.substring(0, colon) : "";
    if (host.isEmpty() || host.equals("0.0.0.0")) {
      host = conf.getTrimmed("yarn.nodemanager.hostname", "");
    }
    if (host.isEmpty() || host.equals("0.0.0.0")) {
      host = InetAddress.getLocalHost().getCanonicalHostName();
    }
    return host;
  }

  private void advertise() throws IOException {
    InetSocketAddress a = agent.address();
    String bound =
        a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
    byte[] text =
        (hostId + "\n" + bound + ":" + a.getPort() + "\n").getBytes(StandardCharsets.UTF_8);
    for (String d : localDirs) {
      Path dir = Path.of(d);
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, AGENT_FILE, ".tmp");
      Files.write(tmp, text);
      tmp.toFile().setReadable(true, false);
      Files.move(
          tmp,
          dir.resolve(AGENT_FILE),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    }
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    // The stock handler reads the buffer (moving its position): keep our own view of it.
    ByteBuffer data =
        context.getApplicationDataForService() == null
            ? null
            : context.getApplicationDataForService().duplicate();
    super.initializeApplication(context);
    CourierAgent a = agent;
    if (a == null) {
      return;
    }
    ApplicationId app = context.getApplicationId();
    JobID job = new JobID(Long.toString(app.getClusterTimestamp()), app.getId());
    try {
      if (data == null || !data.hasRemaining()) {
        // The AM's container carries no token; the tasks' containers do.
        LOG.debug("Courier: a container of {} came without the job token", app);
        return;
      }
      Token<JobTokenIdentifier> token = deserializeServiceData(data);
      // The job's reducers prove the same secret to this agent (identity mr:<job>).
      keys.addClient(
          Credentials.mapReduce(job.toString()),
          Secret.ofEngine(token.getPassword(), "the job token of " + job));
      // Called on every container start of the application: re-registering is harmless.
      a.registry()
          .registerSecured(
              RegisterMapReduce.newBuilder()
                  .setJobId(job.toString())
                  .setUser(context.getUser())
                  .addAllLocalDirs(existing(localDirs))
                  .setShuffleSecret(ByteString.copyFrom(token.getPassword()))
                  .setShufflePort(shufflePort)
                  .build());
    } catch (IOException | RuntimeException e) {
      LOG.error(
          "Courier: registering {} with the agent failed; its reducers will use the stock shuffle",
          job,
          e);
    }
  }

  /** The NodeManager's local dirs, created if they are not there yet: the agent's roots. */
  private static List<Path> existingPaths(List<String> dirs) throws IOException {
    List<Path> out = new ArrayList<>();
    for (String d : dirs) {
      out.add(Files.createDirectories(Path.of(d)));
    }
    return out;
  }

  private static List<String> existing(List<String> dirs) {
    List<String> out = new ArrayList<>();
    for (String d : dirs) {
      if (Files.isDirectory(Path.of(d))) {
        out.add(d);
      }
    }
    return out;
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    super.stopApplication(context);
    CourierAgent a = agent;
    if (a != null) {
      ApplicationId app = context.getApplicationId();
      String job = new JobID(Long.toString(app.getClusterTimestamp()), app.getId()).toString();
      a.registry().unregister(BlockSetId.mapReduce(job).toString());
      keys.remove(Credentials.mapReduce(job));
    }
  }

  @Override
  protected void serviceStop() throws Exception {
    stopAgent();
    super.serviceStop();
  }

  /** Stops this NodeManager's agent (the stock shuffle stays up). */
  public void stopAgent() {
    CourierAgent a = agent;
    agent = null;
    if (a != null) {
      a.close();
    }
  }

  /** The agent, or null if it did not start or was stopped. */
  public CourierAgent agent() {
    return agent;
  }

  /** This NodeManager's shuffle address, its agent's host id. */
  public String hostId() {
    return hostId;
  }
}
