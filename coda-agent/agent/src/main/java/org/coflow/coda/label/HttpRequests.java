package org.coflow.coda.label;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * HTTP requests on a connection, for Hadoop's shuffle: the request line of each {@code GET
 * /mapOutput?job=<job>&reduce=..&map=..} names the job. Only request lines are read: the bytes of
 * each line up to 4 KiB, the headers skipped up to the blank line, and the next request after it.
 */
final class HttpRequests {
  private static final int MAX_LINE = 4096;
  private static final byte[] JOB = "job=".getBytes(StandardCharsets.US_ASCII);

  private final byte[] line = new byte[MAX_LINE];
  private int lineLen;
  private boolean inHeaders;
  private int headerLineLen;
  private String label;
  private boolean failed;

  static boolean looksLikeRequest(byte[] first) {
    String s = new String(first, 0, 5, StandardCharsets.US_ASCII);
    return s.startsWith("GET ") || s.startsWith("POST ") || s.startsWith("HEAD ");
  }

  boolean failed() {
    return failed;
  }

  String takeLabel() {
    String l = label;
    label = null;
    return l;
  }

  /** Consumes all {@code n} bytes. */
  int accept(ByteBuffer buf, byte[] b, int at, int n) {
    for (int i = 0; i < n; i++) {
      byte c = buf != null ? buf.get(at + i) : b[at + i];
      if (!inHeaders) {
        if (c == '\n') {
          requestLine();
          lineLen = 0;
          inHeaders = true;
          headerLineLen = 0;
        } else if (lineLen < MAX_LINE) {
          line[lineLen++] = c;
        } else {
          failed = true;
          return n;
        }
      } else if (c == '\n') {
        if (headerLineLen == 0) {
          inHeaders = false;
        }
        headerLineLen = 0;
      } else if (c != '\r') {
        headerLineLen++;
      }
    }
    return n;
  }

  private void requestLine() {
    String s = new String(line, 0, lineLen, StandardCharsets.ISO_8859_1);
    if (!(s.startsWith("GET ") || s.startsWith("POST ") || s.startsWith("HEAD "))) {
      failed = true;
      return;
    }
    int q = s.indexOf("mapOutput?");
    if (q < 0) {
      return;
    }
    int j = s.indexOf(new String(JOB, StandardCharsets.US_ASCII), q);
    if (j < 0) {
      return;
    }
    int end = j + JOB.length;
    while (end < s.length() && s.charAt(end) != '&' && s.charAt(end) != ' ') {
      end++;
    }
    String job = s.substring(j + JOB.length, end);
    if (!job.isEmpty()) {
      label = "mr:" + job;
    }
  }
}
