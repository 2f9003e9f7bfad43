package org.coflow.stress.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.courier.auth.Proofs;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.protocol.FrameType;
import org.coflow.stress.wire.RawFrames;

/**
 * Plays one {@link FuzzInput} on a fresh connection and collects everything the agent sends until
 * it closes the connection, or for a moment when the input leaves it open. The socket closes with a
 * reset (linger 0), so a million connections leave no TIME_WAIT behind.
 */
final class Exchange {
  /** How the connection ended, as this side saw it. */
  enum End {
    /** The agent closed it (FIN). */
    CLOSED,
    /** The agent reset it (it closed with our bytes unread; a reply may be lost). */
    RESET,
    /** Still open when we stopped waiting. */
    OPEN,
    /** The connection could not be made. */
    NOT_CONNECTED
  }

  /** The most an agent may say to a peer that never completed a handshake. */
  private static final int MAX_REPLY = 1 << 20;

  private final InetSocketAddress agent;
  private final Secret secret;
  private final int openWaitMillis;
  private final int closeWaitMillis;

  /**
   * @param secret to scrub the one valid proof from an answer (see {@link #scrub})
   * @param openWaitMillis how long a connection the input leaves open is watched
   * @param closeWaitMillis how long the agent has to close a connection after our half-close
   */
  Exchange(InetSocketAddress agent, Secret secret, int openWaitMillis, int closeWaitMillis) {
    this.agent = agent;
    this.secret = secret;
    this.openWaitMillis = openWaitMillis;
    this.closeWaitMillis = closeWaitMillis;
  }

  /** What came back: the agent's bytes and how the connection ended. */
  record Seen(byte[] bytes, int length, End end, boolean answered) {
    RawFrames.Replies replies() {
      return RawFrames.parse(bytes, length);
    }
  }

  Seen play(FuzzInput input) {
    Buffer got = new Buffer();
    boolean answered = false;
    try (Socket s = new Socket()) {
      s.setTcpNoDelay(true);
      s.setSoLinger(true, 0);
      try {
        s.connect(agent, closeWaitMillis);
      } catch (IOException e) {
        return new Seen(new byte[0], 0, End.NOT_CONNECTED, false);
      }
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      boolean sent = write(out, input.writes().toArray(new byte[0][]));
      if (sent && input.answer() != null) {
        End end = got.readUntilChallenge(s, in, closeWaitMillis);
        RawFrames.Reply c = got.replies().first(FrameType.CHALLENGE);
        if (c != null && c.challenge() != null) {
          Challenge challenge = c.challenge();
          byte[] answer = scrub(input.answer().after(challenge), input, challenge);
          sent = write(out, answer);
          answered = true;
        } else if (end != End.OPEN) {
          return new Seen(got.bytes, got.length, end, false);
        }
      }
      if (sent && !input.keepOpen()) {
        try {
          s.shutdownOutput();
        } catch (IOException e) {
          // already reset by the agent: what it sent is read below
        }
      }
      End end = got.readToEnd(s, in, input.keepOpen() ? openWaitMillis : closeWaitMillis);
      return new Seen(got.bytes, got.length, end, answered);
    } catch (IOException e) {
      return new Seen(got.bytes, got.length, End.RESET, answered);
    }
  }

  /**
   * Makes sure {@code answer} holds nowhere the one proof that would admit this connection, so that
   * an admitted fuzz connection can only mean the agent admitted a peer that proved nothing.
   */
  private byte[] scrub(byte[] answer, FuzzInput input, Challenge challenge) {
    byte[] valid =
        Proofs.client(
            secret,
            input.hello(),
            challenge.getNonce().toByteArray(),
            challenge.getHostId(),
            agent);
    for (int at = indexOf(answer, valid, 0); at >= 0; at = indexOf(answer, valid, at + 1)) {
      answer[at] ^= 1;
    }
    return answer;
  }

  private static int indexOf(byte[] in, byte[] what, int from) {
    for (int i = from; i + what.length <= in.length; i++) {
      if (Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
        return i;
      }
    }
    return -1;
  }

  /** Writes and flushes each piece; false once the agent has closed the connection. */
  private static boolean write(OutputStream out, byte[]... pieces) {
    try {
      for (byte[] p : pieces) {
        out.write(p);
        out.flush();
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The agent's bytes so far. */
  private static final class Buffer {
    byte[] bytes = new byte[512];
    int length;

    RawFrames.Replies replies() {
      return RawFrames.parse(bytes, length);
    }

    End readUntilChallenge(Socket s, InputStream in, int waitMillis) throws IOException {
      long deadline = System.nanoTime() + waitMillis * 1_000_000L;
      while (true) {
        RawFrames.Replies r = replies();
        if (r.first(FrameType.CHALLENGE) != null
            || r.first(FrameType.ERROR) != null
            || r.malformed() != null) {
          return End.OPEN;
        }
        End end = readSome(s, in, deadline);
        if (end != null) {
          return end;
        }
      }
    }

    End readToEnd(Socket s, InputStream in, int waitMillis) throws IOException {
      long deadline = System.nanoTime() + waitMillis * 1_000_000L;
      while (true) {
        End end = readSome(s, in, deadline);
        if (end != null) {
          return end;
        }
      }
    }

    /** Reads once; null if bytes came and the deadline has not passed. */
    private End readSome(Socket s, InputStream in, long deadline) throws IOException {
      long left = (deadline - System.nanoTime()) / 1_000_000L;
      if (left <= 0) {
        return End.OPEN;
      }
      if (length == bytes.length) {
        if (length >= MAX_REPLY) {
          return End.OPEN;
        }
        bytes = Arrays.copyOf(bytes, 2 * length);
      }
      s.setSoTimeout((int) left);
      int n;
      try {
        n = in.read(bytes, length, bytes.length - length);
      } catch (SocketTimeoutException e) {
        return End.OPEN;
      } catch (IOException e) {
        return End.RESET;
      }
      if (n < 0) {
        return End.CLOSED;
      }
      length += n;
      return null;
    }
  }
}
