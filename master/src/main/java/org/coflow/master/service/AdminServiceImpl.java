package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import org.coflow.api.proto.v1.AdminServiceGrpc;
import org.coflow.api.proto.v1.GetPolicyRequest;
import org.coflow.api.proto.v1.PolicyInfo;
import org.coflow.api.proto.v1.SetPolicyRequest;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.master.security.Caller;

/**
 * Operators' calls: read and switch the policy (the latter for {@link Caller#operator()}s only).
 */
final class AdminServiceImpl extends AdminServiceGrpc.AdminServiceImplBase {
  /** Longer names are refused before they reach a message. */
  private static final int MAX_POLICY_NAME = 64;

  private final MasterService master;

  AdminServiceImpl(MasterService master) {
    this.master = master;
  }

  @Override
  public void getPolicy(GetPolicyRequest req, StreamObserver<PolicyInfo> out) {
    out.onNext(info(master.policy()));
    out.onCompleted();
  }

  @Override
  public void setPolicy(SetPolicyRequest req, StreamObserver<PolicyInfo> out) {
    SchedulingPolicy next;
    if (!Caller.current().operator()) {
      out.onError(
          Status.PERMISSION_DENIED
              .withDescription(
                  "switching the policy needs the operators' token "
                      + "(coflow.master.auth.operatorTokenFile); the agents' token lets its holders "
                      + "report flows, register coflows and receive schedules only")
              .asException());
      return;
    }
    if (req.getName().length() > MAX_POLICY_NAME) {
      out.onError(
          Status.INVALID_ARGUMENT
              .withDescription(
                  "a policy name of "
                      + req.getName().length()
                      + " characters: valid policies are "
                      + String.join(", ", Policies.NAMES))
              .asException());
      return;
    }
    try {
      next = master.setPolicy(req.getName());
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asException());
      return;
    }
    out.onNext(info(next));
    out.onCompleted();
  }

  private PolicyInfo info(SchedulingPolicy p) {
    return PolicyInfo.newBuilder()
        .setName(p.name())
        .setType(SchedulePusher.proto(p.type()))
        .addAllAvailable(Policies.NAMES)
        .setIntervalMs((int) master.intervalMillis())
        .build();
  }
}
