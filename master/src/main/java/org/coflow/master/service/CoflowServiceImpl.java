package org.coflow.master.service;

import io.grpc.StatusException;
import io.grpc.stub.StreamObserver;
import org.coflow.api.proto.v1.CoflowServiceGrpc;
import org.coflow.api.proto.v1.RegisterCoflowRequest;
import org.coflow.api.proto.v1.RegisterCoflowResponse;
import org.coflow.api.proto.v1.UnregisterCoflowRequest;
import org.coflow.api.proto.v1.UnregisterCoflowResponse;

/** Frameworks' coflow registrations (see {@code master.proto}). */
final class CoflowServiceImpl extends CoflowServiceGrpc.CoflowServiceImplBase {
  private final MasterState tables;

  CoflowServiceImpl(MasterState tables) {
    this.tables = tables;
  }

  @Override
  public void registerCoflow(
      RegisterCoflowRequest req, StreamObserver<RegisterCoflowResponse> out) {
    try {
      tables.register(req);
    } catch (StatusException e) {
      out.onError(e);
      return;
    }
    out.onNext(RegisterCoflowResponse.getDefaultInstance());
    out.onCompleted();
  }

  @Override
  public void unregisterCoflow(
      UnregisterCoflowRequest req, StreamObserver<UnregisterCoflowResponse> out) {
    try {
      tables.unregister(req.getCoflowId());
    } catch (StatusException e) {
      out.onError(e);
      return;
    }
    out.onNext(UnregisterCoflowResponse.getDefaultInstance());
    out.onCompleted();
  }
}
