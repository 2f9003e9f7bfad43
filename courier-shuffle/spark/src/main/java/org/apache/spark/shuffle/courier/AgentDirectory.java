package org.apache.spark.shuffle.courier;

import java.io.Serializable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkEnv;
import org.apache.spark.rpc.RpcCallContext;
import org.apache.spark.rpc.RpcEndpointRef;
import org.apache.spark.rpc.RpcEnv;
import org.apache.spark.rpc.ThreadSafeRpcEndpoint;
import org.apache.spark.util.RpcUtils;
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
  static final String ENDPOINT = "CourierAgentDirectory";

  private AgentDirectory() {}

  /** An executor's agent: the host id it serves as and its address (host:port). */
  static final class AgentInfo implements Serializable {
    private static final long serialVersionUID = 1L;
    final String executorId;
    final String hostId;
    final String address;

    AgentInfo(String executorId, String hostId, String address) {
      this.executorId = executorId;
      this.hostId = hostId;
      this.address = address;
    }

    @Override
    public String toString() {
      return "executor " + executorId + " -> agent of host " + hostId + " at " + address;
    }
  }

  /** Executor -> driver: this is my agent. Replies {@code true}. */
  static final class Register implements Serializable {
    private static final long serialVersionUID = 1L;
    final AgentInfo agent;

    Register(AgentInfo agent) {
      this.agent = agent;
    }
  }

  /**
   * Reader -> driver: the agent of this executor. Replies an {@link AgentInfo}, or null if none.
   */
  static final class Lookup implements Serializable {
    private static final long serialVersionUID = 1L;
    final String executorId;

    Lookup(String executorId) {
      this.executorId = executorId;
    }
  }

  /**
   * Reader -> driver: this executor's agent could not be reached at this address; the driver
   * forgets it unless the executor has reported another since (readers then use Spark's own fetch
   * for that executor until its agent is back). Replies {@code true}.
   */
  static final class Unreachable implements Serializable {
    private static final long serialVersionUID = 1L;
    final String executorId;
    final String address;

    Unreachable(String executorId, String address) {
      this.executorId = executorId;
      this.address = address;
    }
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
          return message instanceof Register
              || message instanceof Lookup
              || message instanceof Unreachable;
        }

        @Override
        public <A1, B1> B1 applyOrElse(A1 message, Function1<A1, B1> fallback) {
          if (message instanceof Register) {
            AgentInfo a = ((Register) message).agent;
            agents.put(a.executorId, a);
            context.reply(Boolean.TRUE);
          } else if (message instanceof Lookup) {
            context.reply(agents.get(((Lookup) message).executorId));
          } else if (message instanceof Unreachable) {
            Unreachable u = (Unreachable) message;
            agents.computeIfPresent(u.executorId, (k, v) -> v.address.equals(u.address) ? null : v);
            context.reply(Boolean.TRUE);
          } else {
            return fallback.apply(message);
          }
          @SuppressWarnings("unchecked")
          B1 unit = (B1) BoxedUnit.UNIT;
          return unit;
        }
      };
    }
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
    driver.askSync(new Register(agent), ClassTag$.MODULE$.apply(Boolean.class));
  }

  static void unreachable(RpcEndpointRef driver, String executorId, String address) {
    driver.askSync(new Unreachable(executorId, address), ClassTag$.MODULE$.apply(Boolean.class));
  }

  /** The agent of {@code executorId}, or null if it reported none. */
  static AgentInfo lookup(RpcEndpointRef driver, String executorId) {
    Object r = driver.askSync(new Lookup(executorId), ClassTag$.MODULE$.apply(Object.class));
    return (AgentInfo) r;
  }
}
