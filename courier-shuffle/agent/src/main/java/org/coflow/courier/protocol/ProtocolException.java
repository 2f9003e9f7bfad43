package org.coflow.courier.protocol;

import org.coflow.api.proto.courier.v1.ErrorCode;

/** A peer broke the protocol (or asked for something it may not have): the message says how. */
public final class ProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final ErrorCode code;

  public ProtocolException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  /** The same, caused by {@code cause} (an I/O error, a failed connect), which travels with it. */
  public ProtocolException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }
}
