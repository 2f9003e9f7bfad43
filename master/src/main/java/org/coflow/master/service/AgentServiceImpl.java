package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.CloseSessionRequest;
import org.coflow.api.proto.v1.CloseSessionResponse;
import org.coflow.api.proto.v1.FindAgentRequest;
import org.coflow.api.proto.v1.FindAgentResponse;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.OpenSessionResponse;
import org.coflow.api.proto.v1.ReportAck;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.api.proto.v1.ScheduleUpdate;
import org.coflow.api.proto.v1.WatchScheduleRequest;
import org.coflow.master.security.Caller;
import org.coflow.master.security.Printable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The agents' side of the control plane (see {@code master.proto} for the contract). */
final class AgentServiceImpl extends AgentServiceGrpc.AgentServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(AgentServiceImpl.class);

  /** Characters of a refusal's message (which quotes the request) kept in a log line. */
  private static final int MESSAGE_CHARS = 1024;

  private final MasterState tables;
  private final SchedulerLoop loop;
  private final String masterId;
  private final long sessionTimeoutMillis;

  AgentServiceImpl(
      MasterState tables, SchedulerLoop loop, String masterId, long sessionTimeoutMillis) {
    this.tables = tables;
    this.loop = loop;
    this.masterId = masterId;
    this.sessionTimeoutMillis = sessionTimeoutMillis;
  }

  @Override
  public void openSession(OpenSessionRequest req, StreamObserver<OpenSessionResponse> out) {
    AgentSession s;
    try {
      s = tables.open(req, Caller.current(), System.nanoTime());
    } catch (StatusException e) {
      LOG.warn(
          "refused session of host={} by {}: {}",
          Printable.of(req.getHostId()),
          Caller.current(),
          Printable.of(e.getStatus().getDescription(), MESSAGE_CHARS));
      out.onError(e);
      return;
    }
    LOG.info(
        "session opened host={} data={} engine={} by {}",
        Printable.of(s.hostId),
        Printable.of(s.dataAddress),
        Printable.of(s.engineAddress),
        s.owner);
    out.onNext(
        OpenSessionResponse.newBuilder()
            .setSessionId(s.id)
            .setMasterId(masterId)
            .setIntervalMs((int) loop.intervalMillis())
            .setSessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, sessionTimeoutMillis))
            .setPolicy(loop.policy().name())
            .setPolicyType(SchedulePusher.proto(loop.policy().type()))
            .build());
    out.onCompleted();
  }

  @Override
  public StreamObserver<ReportBatch> report(StreamObserver<ReportAck> out) {
    return new StreamObserver<>() {
      private boolean failed;

      @Override
      public void onNext(ReportBatch batch) {
        if (failed) {
          return;
        }
        try {
          tables.report(batch, Caller.current(), System.nanoTime());
        } catch (StatusException e) {
          failed = true;
          if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
            // Routine after a session ended (closed, replaced, expired): the agent reopens.
            LOG.info("report for a session that is not open, by {}", Caller.current());
          } else {
            LOG.warn(
                "rejected report batch seq={} by {}: {}",
                batch.getSeq(),
                Caller.current(),
                Printable.of(e.getStatus().getDescription(), MESSAGE_CHARS));
          }
          out.onError(e);
          return;
        }
        out.onNext(
            ReportAck.newBuilder().setSeq(batch.getSeq()).setRound(loop.round() + 1).build());
      }

      @Override
      public void onError(Throwable t) {
        // The agent went away or cancelled; its session expires unless it reconnects.
      }

      @Override
      public void onCompleted() {
        if (!failed) {
          out.onCompleted();
        }
      }
    };
  }

  @Override
  public void watchSchedule(WatchScheduleRequest req, StreamObserver<ScheduleUpdate> out) {
    ServerCallStreamObserver<ScheduleUpdate> call = (ServerCallStreamObserver<ScheduleUpdate>) out;
    ScheduleStream stream = new ScheduleStream(call);
    call.setOnCancelHandler(
        () -> {
          stream.cancelled();
          tables.unwatch(req.getSessionId(), stream);
        });
    try {
      ScheduleStream old = tables.watch(req.getSessionId(), Caller.current(), stream);
      if (old != null) {
        old.close(Status.OK);
      }
    } catch (StatusException e) {
      stream.close(e.getStatus());
    }
  }

  @Override
  public void closeSession(CloseSessionRequest req, StreamObserver<CloseSessionResponse> out) {
    tables.close(req.getSessionId(), Caller.current());
    out.onNext(CloseSessionResponse.getDefaultInstance());
    out.onCompleted();
  }

  @Override
  public void findAgent(FindAgentRequest req, StreamObserver<FindAgentResponse> out) {
    AgentSession s;
    try {
      s = tables.find(req.getEngineAddress(), req.getHostId());
    } catch (StatusException e) {
      out.onError(e);
      return;
    }
    out.onNext(
        FindAgentResponse.newBuilder()
            .setHostId(s.hostId)
            .setDataAddress(s.dataAddress)
            .setEngineAddress(s.engineAddress)
            .build());
    out.onCompleted();
  }
}
