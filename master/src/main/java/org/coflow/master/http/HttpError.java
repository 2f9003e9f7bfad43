package org.coflow.master.http;

/** A request the client got wrong: answered with its status and message. */
final class HttpError extends RuntimeException {
  private static final long serialVersionUID = 1L;
  final int status;

  HttpError(int status, String message) {
    super(message);
    this.status = status;
  }
}
