package org.coflow.sim.trace;

/** A trace file that does not follow the format; the message names the file, line and value. */
public final class TraceFormatException extends Exception {
  public TraceFormatException(String file, int line, String message) {
    super(file + ":" + line + ": " + message);
  }
}
