package org.apache.spark.shuffle.courier;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkEnv;
import org.apache.spark.rpc.RpcCallContext;
import org.apache.spark.rpc.RpcEndpointRef;
import org.apache.spark.rpc.RpcEnv;
import org.apache.spark.rpc.ThreadSafeRpcEndpoint;
import org.apache.spark.util.RpcUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Function1;
import scala.PartialFunction;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractPartialFunction;
import scala.runtime.BoxedUnit;

/**
 * Which agent serves each executor's shuffle files: executors report theirs to a small endpoint in
 * the driver (as block managers report to Spark's {@code BlockManagerMaster}) and readers look
 * remote executors up there. Moving data never needs the coflow master.
 */
final class AgentDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(AgentDirectory.class);

  static final String ENDPOINT = "CourierAgentDirectory";

  private AgentDirectory() {}

  /** An executor's agent: the host id it serves as and its address (host:port). */
  static final class AgentInfo {
    final String executorId;
    final String hostId;
    final String address;

    AgentInfo(String executorId, String hostId, String address) {
      this.executorId = executorId;
      this.hostId = hostId;
      this.address = address;
    }

    String[] toWire() {
      return new String[] {executorId, hostId, address};
    }

    static AgentInfo fromWire(String[] w, int at) {
      return new AgentInfo(w[at], w[at + 1], w[at + 2]);
    }

    @Override
    public String toString() {
      return "executor " + executorId + " -> agent of host " + hostId + " at " + address;
    }
  }

  /*
   * The messages are String arrays whose first element names them, and the replies Booleans or
   * String arrays: Spark's RPC threads deserialise with Spark's own class loader, which on Spark 4
   * does not see a plugin added with --jars (a class of ours in a message made the receiving side
   * drop the connection, and an executor whose driver connection drops exits).
   */

  /** Executor -> driver: this is my agent ({@code REGISTER, executor, host id, address}). */
  static final String REGISTER = "courier.register";

  /**
   * Reader -> driver: the agent of this executor ({@code LOOKUP, executor}). Replies {@code
   * [executor, host id, address]}, or null if none.
   */
  static final String LOOKUP = "courier.lookup";

  /**
   * Reader -> driver: this executor's agent could not be reached at this address ({@code
   * UNREACHABLE, executor, address}); the driver forgets it unless the executor has reported
   * another since (readers then use Spark's own fetch for that executor until its agent is back).
   * Replies {@code true}.
   */
  static final String UNREACHABLE = "courier.unreachable";

  private static String[] message(String kind, String... fields) {
    String[] m = new String[fields.length + 1];
    m[0] = kind;
    System.arraycopy(fields, 0, m, 1, fields.length);
    return m;
  }

  /** The kind of a message of ours, or null if {@code message} is none of ours. */
  private static String kindOf(Object message) {
    if (!(message instanceof String[])) {
      return null;
    }
    String[] m = (String[]) message;
    for (String field : m) {
      if (field == null) {
        return null;
      }
    }
    if (m.length == 4 && REGISTER.equals(m[0])
        || m.length == 2 && LOOKUP.equals(m[0])
        || m.length == 3 && UNREACHABLE.equals(m[0])) {
      return m[0];
    }
    return null;
  }

  /** The driver's side. */
  static final class Endpoint implements ThreadSafeRpcEndpoint {
    private final RpcEnv rpcEnv;
    private final Map<String, AgentInfo> agents = new ConcurrentHashMap<>();

    Endpoint(RpcEnv rpcEnv) {
      this.rpcEnv = rpcEnv;
    }

    @Override
    public RpcEnv rpcEnv() {
      return rpcEnv;
    }

    @Override
    public PartialFunction<Object, BoxedUnit> receiveAndReply(RpcCallContext context) {
      return new AbstractPartialFunction<Object, BoxedUnit>() {
        @Override
        public boolean isDefinedAt(Object message) {
          return kindOf(message) != null;
        }

        @Override
        public <A1, B1> B1 applyOrElse(A1 message, Function1<A1, B1> fallback) {
          String kind = kindOf(message);
          if (kind == null) {
            return fallback.apply(message);
          }
          String[] m = (String[]) message;
          if (REGISTER.equals(kind)) {
            AgentInfo a = AgentInfo.fromWire(m, 1);
            // No sender address: the driver's own process (a local call), which is trusted.
            String refused =
                context.senderAddress() == null
                    ? null
                    : refusal(a.executorId, context.senderAddress().host());
            if (refused != null) {
              LOG.warn("Courier: refused {}: {}", a, refused);
              context.reply(Boolean.FALSE);
            } else {
              agents.put(a.executorId, a);
              context.reply(Boolean.TRUE);
            }
          } else if (LOOKUP.equals(kind)) {
            AgentInfo a = agents.get(m[1]);
            context.reply(a == null ? null : a.toWire());
          } else {
            agents.computeIfPresent(m[1], (k, v) -> v.address.equals(m[2]) ? null : v);
            context.reply(Boolean.TRUE);
          }
          @SuppressWarnings("unchecked")
          B1 unit = (B1) BoxedUnit.UNIT;
          return unit;
        }
      };
    }
  }

  /**
   * Why a registration of {@code executorId}'s agent sent from {@code senderHost} is refused, or
   * null: it must come from the host the executor's block manager registered with the driver, so
   * that a process elsewhere cannot point readers of the executor's blocks at an agent of its own.
   */
  static String refusal(String executorId, String senderHost) {
    String host = blockManagerHost(executorId);
    if (host == null) {
      return "the driver knows no block manager of executor " + executorId;
    }
    try {
      java.net.InetAddress expected = java.net.InetAddress.getByName(host);
      java.net.InetAddress sender = java.net.InetAddress.getByName(senderHost);
      if (expected.equals(sender) || expected.isLoopbackAddress() && sender.isLoopbackAddress()) {
        return null;
      }
      return "it came from "
          + sender.getHostAddress()
          + ", not from executor "
          + executorId
          + "'s host "
          + host
          + " ("
          + expected.getHostAddress()
          + ")";
    } catch (java.net.UnknownHostException e) {
      return "cannot resolve " + e.getMessage();
    }
  }

  /** The host of {@code executorId}'s block manager as the driver knows it, or null. */
  private static String blockManagerHost(String executorId) {
    SparkEnv env = SparkEnv.get();
    if (env == null) {
      return null;
    }
    scala.collection.Iterator<?> ids = env.blockManager().master().getMemoryStatus().keysIterator();
    while (ids.hasNext()) {
      org.apache.spark.storage.BlockManagerId id =
          (org.apache.spark.storage.BlockManagerId) ids.next();
      if (id.executorId().equals(executorId)) {
        return id.host();
      }
    }
    return null;
  }

  private static RpcEnv started;

  /** Sets the endpoint up in the driver (once per driver). */
  static synchronized void startOnDriver(SparkEnv env) {
    if (started != env.rpcEnv()) {
      env.rpcEnv().setupEndpoint(ENDPOINT, new Endpoint(env.rpcEnv()));
      started = env.rpcEnv();
    }
  }

  /** Forgets the driver's endpoint (the driver's manager stopped). */
  static synchronized void stopOnDriver(SparkEnv env) {
    if (env != null && started == env.rpcEnv()) {
      started = null;
    }
  }

  static RpcEndpointRef driver(SparkEnv env) {
    return RpcUtils.makeDriverRef(ENDPOINT, env.conf(), env.rpcEnv());
  }

  static void register(RpcEndpointRef driver, AgentInfo agent) {
    Object accepted =
        driver.askSync(message(REGISTER, agent.toWire()), ClassTag$.MODULE$.apply(Object.class));
    if (!Boolean.TRUE.equals(accepted)) {
      throw new IllegalStateException(
          "the driver refused " + agent + " (see the driver's log); using Spark's own shuffle");
    }
  }

  static void unreachable(RpcEndpointRef driver, String executorId, String address) {
    driver.askSync(
        message(UNREACHABLE, executorId, address), ClassTag$.MODULE$.apply(Boolean.class));
  }

  /** The agent of {@code executorId}, or null if it reported none. */
  static AgentInfo lookup(RpcEndpointRef driver, String executorId) {
    Object r = driver.askSync(message(LOOKUP, executorId), ClassTag$.MODULE$.apply(Object.class));
    if (r == null) {
      return null;
    }
    if (!(r instanceof String[]) || ((String[]) r).length != 3) {
      throw new IllegalStateException(
          "the driver's "
              + ENDPOINT
              + " answered a lookup of executor "
              + executorId
              + " with "
              + (r instanceof String[] ? java.util.Arrays.toString((String[]) r) : r)
              + ", not [executor, host id, address]: are the driver and executors on the same"
              + " Courier jar?");
    }
    return AgentInfo.fromWire((String[]) r, 0);
  }
}
