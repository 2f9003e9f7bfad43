package org.coflow.core.config;

/** Bad command-line input: the message is printed as is, and the command exits with status 2. */
public final class UsageException extends Exception {
  public UsageException(String message) {
    super(message);
  }
}
