package org.coflow.master.service;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import org.coflow.api.proto.v1.ScheduleUpdate;

/**
 * An agent's WatchSchedule stream. The scheduling thread sends on it and the session's owner may
 * close it from another thread, so every call on the underlying observer is serialised here.
 */
final class ScheduleStream {
  private final ServerCallStreamObserver<ScheduleUpdate> observer;
  private boolean closed;

  /** An update was refused; the stream takes only a full schedule until one goes through. */
  private boolean broken;

  ScheduleStream(ServerCallStreamObserver<ScheduleUpdate> observer) {
    this.observer = observer;
  }

  /**
   * Sends {@code update} if the stream is open and its transport can take it now.
   *
   * @return false if the update was not sent (the caller sends a full schedule later)
   */
  synchronized boolean trySend(ScheduleUpdate update) {
    if (closed || observer.isCancelled() || !observer.isReady() || broken && !update.getFull()) {
      // After one refused update, deltas would leave the agent with a gap: only a full one heals.
      broken = true;
      return false;
    }
    observer.onNext(update);
    broken = false;
    return true;
  }

  synchronized boolean isOpen() {
    return !closed && !observer.isCancelled();
  }

  /** Ends the stream with {@code status} (OK completes it normally). Idempotent. */
  synchronized void close(Status status) {
    if (closed) {
      return;
    }
    closed = true;
    if (observer.isCancelled()) {
      return;
    }
    if (status.isOk()) {
      observer.onCompleted();
    } else {
      observer.onError(status.asRuntimeException());
    }
  }

  /** Marks the stream closed after the client cancelled it (nothing left to send). */
  synchronized void cancelled() {
    closed = true;
  }
}
