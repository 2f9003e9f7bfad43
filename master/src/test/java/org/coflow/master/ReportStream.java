package org.coflow.master;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.ReportAck;
import org.coflow.api.proto.v1.ReportBatch;

/** A report stream to the master that records each answer (an ack, or the final status). */
public final class ReportStream {
  private final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
  private final StreamObserver<ReportBatch> out;

  public ReportStream(ManagedChannel channel) {
    this(AgentServiceGrpc.newStub(channel));
  }

  public ReportStream(AgentServiceGrpc.AgentServiceStub agents) {
    out =
        agents.report(
            new StreamObserver<>() {
              @Override
              public void onNext(ReportAck ack) {
                events.add(ack);
              }

              @Override
              public void onError(Throwable t) {
                events.add(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                events.add(Status.OK);
              }
            });
  }

  /** Sends {@code batch}; returns its {@link ReportAck}, or the {@link Status} that ended it. */
  public Object send(ReportBatch batch) throws InterruptedException {
    out.onNext(batch);
    Object e = events.poll(60, TimeUnit.SECONDS);
    assertTrue(e != null, "no answer to a report batch within 60 s");
    return e;
  }
}
