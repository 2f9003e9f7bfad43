package org.coflow.coda;

import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.core.config.Config;
import org.coflow.master.service.MasterService;

/**
 * A real coflow master on a loopback port that also keeps every flow report its agents sent (the
 * master itself forgets finished flows): what the tests compare with the bytes they really moved.
 */
final class RecordingMaster implements AutoCloseable {
  /** The latest report of one flow, with the spec of its first. */
  static final class Seen {
    volatile FlowSpec spec;
    volatile long sent;
    volatile boolean finished;
  }

  final MasterService service;
  private final Server server;
  final Map<Long, Seen> flows = new ConcurrentHashMap<>();

  RecordingMaster(Config config) throws Exception {
    service = new MasterService(config);
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    for (BindableService s : service.services()) {
      b.addService(ServerInterceptors.intercept(s, new Recorder()));
    }
    server = b.build().start();
    service.start();
  }

  int port() {
    return server.getPort();
  }

  /** Flows whose spec matches, as reported so far. */
  List<Seen> flows(Predicate<FlowSpec> which) {
    List<Seen> out = new ArrayList<>();
    for (Seen s : flows.values()) {
      if (s.spec != null && which.test(s.spec)) {
        out.add(s);
      }
    }
    return out;
  }

  @Override
  public void close() throws Exception {
    server.shutdownNow();
    service.close();
  }

  private final class Recorder implements ServerInterceptor {
    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onMessage(Q message) {
          if (message instanceof ReportBatch) {
            for (FlowReport r : ((ReportBatch) message).getFlowsList()) {
              Seen s = flows.computeIfAbsent(r.getFlowId(), k -> new Seen());
              if (r.hasSpec() && s.spec == null) {
                s.spec = r.getSpec();
              }
              s.sent = Math.max(s.sent, r.getBytesSent());
              s.finished |= r.getFinished();
            }
          }
          super.onMessage(message);
        }
      };
    }
  }
}
