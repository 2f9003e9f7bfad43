package org.coflow.coda.label;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Spark's transport frames on a connection (network-common's {@code MessageEncoder}): an 8-byte
 * big-endian frame length that counts itself, a message type byte, the message's header, the body.
 * Of all messages only an {@code RpcRequest} (type 3: request id, 4-byte body length, body) is
 * read, and of its body only the start: a {@code BlockTransferMessage} whose type byte is {@code
 * OpenBlocks} (0: app id, executor id, block ids) or {@code FetchShuffleBlocks} (9: app id,
 * executor id, shuffle id). Strings are a 4-byte length and UTF-8. Every other frame is skipped by
 * length.
 */
final class SparkFrames {
  private static final int RPC_REQUEST = 3;
  private static final int OPEN_BLOCKS = 0;
  private static final int FETCH_SHUFFLE_BLOCKS = 9;

  /** Largest message type Spark 3.5 and 4.x send (MergedBlockMetaSuccess). */
  private static final int MAX_TYPE = 12;

  /** Bytes of an RpcRequest read: frame length, type, request id, body length, body start. */
  private static final int HEAD = 8 + 1 + 8 + 4 + 1024;

  private final byte[] head = new byte[HEAD];
  private int headLen;
  private long frameLen = -1;
  private long skip;
  private String label;
  private boolean failed;

  static boolean looksLikeFrame(byte[] first) {
    long len = ByteBuffer.wrap(first, 0, 8).getLong();
    int type = first[8];
    return len >= 9 && len < (1L << 40) && (type >= 0 && type <= MAX_TYPE || type == -1);
  }

  boolean failed() {
    return failed;
  }

  String takeLabel() {
    String l = label;
    label = null;
    return l;
  }

  /** Consumes some of the {@code n} bytes at {@code at}; returns how many (at least one). */
  int accept(ByteBuffer buf, byte[] b, int at, int n) {
    if (skip > 0) {
      int s = (int) Math.min(skip, n);
      skip -= s;
      return s;
    }
    int want = frameLen < 0 ? 9 : (int) Math.min(HEAD, frameLen);
    int take = Math.min(n, want - headLen);
    for (int i = 0; i < take; i++) {
      head[headLen++] = buf != null ? buf.get(at + i) : b[at + i];
    }
    if (frameLen < 0 && headLen == 9) {
      frameLen = ByteBuffer.wrap(head, 0, 8).getLong();
      int type = head[8];
      if (frameLen < 9 || frameLen >= (1L << 40) || type > MAX_TYPE || type < -1) {
        failed = true;
        return take;
      }
      if (type != RPC_REQUEST) {
        endFrame();
        return take;
      }
      want = (int) Math.min(HEAD, frameLen);
    }
    if (frameLen >= 0 && headLen == want) {
      parseRpc();
      endFrame();
    }
    return Math.max(1, take);
  }

  private void endFrame() {
    skip = frameLen - headLen;
    frameLen = -1;
    headLen = 0;
  }

  private void parseRpc() {
    ByteBuffer m = ByteBuffer.wrap(head, 0, headLen);
    m.position(9 + 8 + 4);
    if (!m.hasRemaining()) {
      return;
    }
    int type = m.get();
    if (type != OPEN_BLOCKS && type != FETCH_SHUFFLE_BLOCKS) {
      return;
    }
    String app = string(m);
    String exec = string(m);
    if (app == null || exec == null) {
      return;
    }
    if (type == FETCH_SHUFFLE_BLOCKS) {
      if (m.remaining() >= 4) {
        label = "spark:" + app + ":" + m.getInt();
      }
      return;
    }
    if (m.remaining() < 4 || m.getInt() < 1) {
      return;
    }
    String block = string(m);
    if (block != null && block.startsWith("shuffle_")) {
      int end = block.indexOf('_', "shuffle_".length());
      if (end > 0) {
        label = "spark:" + app + ":" + block.substring("shuffle_".length(), end);
      }
    }
  }

  private static String string(ByteBuffer m) {
    if (m.remaining() < 4) {
      return null;
    }
    int len = m.getInt();
    if (len < 0 || len > m.remaining() || len > 512) {
      return null;
    }
    String s = new String(m.array(), m.position(), len, StandardCharsets.UTF_8);
    m.position(m.position() + len);
    return s;
  }
}
