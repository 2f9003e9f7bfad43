package org.coflow.api.client;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.CoflowServiceGrpc;
import org.coflow.api.proto.v1.FindAgentRequest;
import org.coflow.api.proto.v1.FindAgentResponse;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.api.proto.v1.UnregisterCoflowRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an engine's driver uses to tell the master a coflow begins and ends (Spark: a shuffle is
 * registered and unregistered), and what a reader uses to find a host's agent in the master's
 * registry when it cannot compute the address itself. Best effort by design: a master that is down,
 * slow or refuses never fails the job; each call waits at most its deadline and the outcome is
 * logged. Thread-safe.
 */
public final class CoflowRegistrar implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CoflowRegistrar.class);

  private final String target;
  private final ManagedChannel channel;
  private final CoflowServiceGrpc.CoflowServiceBlockingStub stub;
  private final AgentServiceGrpc.AgentServiceBlockingStub agents;
  private final long deadlineMillis;
  private volatile boolean warned;

  /**
   * A registrar for the master at {@code target} (host:port); calls wait at most {@code
   * deadlineMillis}.
   */
  public CoflowRegistrar(String target, long deadlineMillis) {
    this(target, deadlineMillis, MasterCredentials.none());
  }

  /**
   * A registrar for the master at {@code target} (host:port) that authenticates with {@code
   * credentials} (the master's token, TLS); calls wait at most {@code deadlineMillis}.
   *
   * @throws IllegalArgumentException if a certificate or key file cannot be used
   */
  public CoflowRegistrar(String target, long deadlineMillis, MasterCredentials credentials) {
    this.target = target;
    this.channel = credentials.apply(NettyChannelBuilder.forTarget(target), target).build();
    this.stub = CoflowServiceGrpc.newBlockingStub(channel);
    this.agents = AgentServiceGrpc.newBlockingStub(channel);
    this.deadlineMillis = deadlineMillis;
  }

  /** Registers {@code coflowId}; returns whether the master took it (false: logged, carry on). */
  public boolean register(String coflowId, String name) {
    return register(coflowId, name, 1);
  }

  /**
   * Registers {@code coflowId} with a weight for weighted policies (Sincronia's BSSI); returns
   * whether the master took it (false: logged, carry on).
   */
  public boolean register(String coflowId, String name, double weight) {
    try {
      stub.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
          .registerCoflow(
              RegisterCoflowRequest.newBuilder()
                  .setCoflowId(coflowId)
                  .setName(name)
                  .setWeight(weight)
                  .build());
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        return true;
      }
      problem("registering coflow " + coflowId, e);
      return false;
    }
  }

  /** Ends {@code coflowId}; returns whether the master knew it. */
  public boolean unregister(String coflowId) {
    try {
      stub.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
          .unregisterCoflow(UnregisterCoflowRequest.newBuilder().setCoflowId(coflowId).build());
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        problem("unregistering coflow " + coflowId, e);
      }
      return false;
    }
  }

  /**
   * The agent of the host whose engine address (MapReduce: a NodeManager's shuffle host:port) is
   * {@code engineAddress}, or null when the master has none or cannot be reached (logged).
   */
  public FindAgentResponse findAgent(String engineAddress) {
    try {
      return agents
          .withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
          .findAgent(FindAgentRequest.newBuilder().setEngineAddress(engineAddress).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        problem("finding the agent of " + engineAddress, e);
      }
      return null;
    }
  }

  private void problem(String what, StatusRuntimeException e) {
    // Once at WARN (the master may simply not run), then at DEBUG.
    if (!warned) {
      warned = true;
      LOG.warn(
          "coflow master at {}: {} failed ({}); the job goes on without it",
          target,
          what,
          e.getStatus());
    } else {
      LOG.debug("coflow master at {}: {} failed ({})", target, what, e.getStatus());
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
