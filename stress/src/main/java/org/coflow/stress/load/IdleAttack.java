package org.coflow.stress.load;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.protocol.FrameType;
import org.coflow.courier.transport.Limits;
import org.coflow.stress.wire.RawFrames;
import org.coflow.stress.wire.RawHandshake;

/**
 * Hostile connections held open against an agent while {@code bench load} streams: they take turns
 * among {@link Kind}s, and each one the agent refuses (an ERROR frame, or a close) is counted by
 * kind and code; the others stay open until {@link #close}. Dribblers, if any, send a HELLO one
 * byte per segment ({@link #dribble}).
 */
final class IdleAttack implements AutoCloseable {
  /** What one hostile connection does. */
  enum Kind {
    /** Connects and sends nothing. */
    SILENT,
    /** Sends the preamble and the prefix of a first frame announcing 16 MiB, then nothing. */
    ANNOUNCE_16M,
    /** Sends the preamble and most of a HELLO of the largest size allowed before admission. */
    PARTIAL_HELLO,
    /** Completes the handshake with the secret, then sends part of a 16 MiB request. */
    AUTHENTICATED_PARTIAL,
    /** Sends a HELLO one byte per segment ({@link #dribble}; not among the idle kinds). */
    DRIBBLE
  }

  private static final int READ_MILLIS = 100;

  private final InetSocketAddress agent;
  private final List<InetAddress> sources;
  private final Credentials credentials;
  private final String hostId;
  private final long partialBytes;
  private final List<Socket> held = new ArrayList<>();
  private final Map<String, LongAdder> refused = new ConcurrentHashMap<>();
  private final List<Socket> dribblers = new ArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong dribbled = new AtomicLong();
  private Thread dribbling;

  /**
   * @param sources the addresses the attack comes from, taking turns (loopback addresses stand for
   *     hosts: the agent bounds handshakes per remote address)
   * @param partialBytes how much of its 16 MiB request an authenticated peer sends
   */
  IdleAttack(
      InetSocketAddress agent,
      List<InetAddress> sources,
      Credentials credentials,
      String hostId,
      long partialBytes) {
    this.agent = agent;
    this.sources = sources;
    this.credentials = credentials;
    this.hostId = hostId;
    this.partialBytes = partialBytes;
  }

  /** Opens {@code n} hostile connections, 16 at a time, the kinds taking turns. */
  void open(int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Kind kind = Kind.values()[i % Kind.DRIBBLE.ordinal()];
        // Every address sends every kind.
        InetAddress from = sources.get(i / Kind.DRIBBLE.ordinal() % sources.size());
        all.add(pool.submit(() -> openOne(kind, from)));
      }
      for (Future<?> f : all) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void openOne(Kind kind, InetAddress from) {
    Socket s = new Socket();
    try {
      s.setSoLinger(true, 0);
      s.setTcpNoDelay(true);
      s.bind(new InetSocketAddress(from, 0));
      s.connect(agent, 5000);
      if (kind == Kind.AUTHENTICATED_PARTIAL) {
        RawHandshake.authenticate(s, credentials, hostId, Role.ROLE_CLIENT);
      }
      write(s.getOutputStream(), kind);
      String answer = answer(s);
      if (answer != null) {
        count(kind, answer);
        s.close();
        return;
      }
      synchronized (held) {
        held.add(s);
      }
    } catch (RawHandshake.Refused e) {
      count(kind, e.error().getCode().name().replace("ERROR_CODE_", ""));
      close(s);
    } catch (IOException e) {
      count(kind, "closed");
      close(s);
    }
  }

  private void write(OutputStream out, Kind kind) throws IOException {
    switch (kind) {
      case SILENT:
        return;
      case ANNOUNCE_16M:
        out.write(RawFrames.concat(RawFrames.preamble(), prefix(FrameType.HELLO, 16 << 20)));
        break;
      case PARTIAL_HELLO:
        out.write(
            RawFrames.concat(
                RawFrames.preamble(), prefix(FrameType.HELLO, Limits.HANDSHAKE_FRAME)));
        out.write(new byte[Limits.HANDSHAKE_FRAME - 5 - 64]);
        break;
      default:
        out.write(prefix(FrameType.FETCH_REQUEST, 16 << 20));
        byte[] chunk = new byte[64 << 10];
        for (long left = partialBytes; left > 0; left -= chunk.length) {
          out.write(chunk, 0, (int) Math.min(chunk.length, left));
        }
    }
    out.flush();
  }

  /** The first 9 bytes of a frame of {@code type} announcing {@code length} bytes of header. */
  private static byte[] prefix(FrameType type, long length) {
    return RawFrames.frame(length, type.id(), (int) (length - 5), new byte[0], new byte[0]);
  }

  /** What the agent answered at once: an ERROR frame's code, "closed", or null (still open). */
  private static String answer(Socket s) throws IOException {
    s.setSoTimeout(READ_MILLIS);
    InputStream in = s.getInputStream();
    byte[] buf = new byte[4096];
    int n = 0;
    try {
      while (n < buf.length) {
        int r = in.read(buf, n, buf.length - n);
        if (r < 0) {
          break;
        }
        n += r;
      }
    } catch (SocketTimeoutException e) {
      if (n == 0) {
        return null;
      }
    }
    RawFrames.Reply first = RawFrames.parse(buf, n).first(FrameType.ERROR);
    Error error = first == null ? null : first.error();
    return error == null ? "closed" : error.getCode().name().replace("ERROR_CODE_", "");
  }

  /**
   * Adds {@code n} peers that send the preamble and the prefix of a HELLO of the largest size
   * allowed before admission, then the rest of it one byte per segment, a byte to each every {@code
   * gapMillis}, until the agent closes them (its handshake timeout) or {@link #close}. The agent
   * buffers a HELLO as its bytes arrive; this is what each read costs it.
   */
  void dribble(int n, long gapMillis) throws IOException {
    for (int i = 0; i < n; i++) {
      Socket s = new Socket();
      s.setSoLinger(true, 0);
      s.setTcpNoDelay(true);
      s.bind(new InetSocketAddress(sources.get(i % sources.size()), 0));
      s.connect(agent, 5000);
      s.getOutputStream()
          .write(
              RawFrames.concat(
                  RawFrames.preamble(), prefix(FrameType.HELLO, Limits.HANDSHAKE_FRAME)));
      dribblers.add(s);
    }
    long most = Limits.HANDSHAKE_FRAME - 5 - 1;
    dribbling =
        new Thread(
            () -> {
              byte[] one = {0};
              for (long sent = 0; sent < most && !stop.get() && !dribblers.isEmpty(); sent++) {
                dribblers.removeIf(
                    s -> {
                      try {
                        s.getOutputStream().write(one);
                        dribbled.incrementAndGet();
                        return false;
                      } catch (IOException e) {
                        count(Kind.DRIBBLE, "closed");
                        return true;
                      }
                    });
                try {
                  Thread.sleep(gapMillis);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "dribbler");
    dribbling.setDaemon(true);
    dribbling.start();
  }

  /** Waits until every dribbler was closed by the agent or sent its whole HELLO. */
  void awaitDribblers(long millis) throws InterruptedException {
    if (dribbling != null) {
      dribbling.join(millis);
    }
  }

  /** Bytes the dribblers sent, one segment each. */
  long dribbled() {
    return dribbled.get();
  }

  /** Connections of this attack the agent has not closed (each probed with a 1 ms read). */
  int stillOpen() {
    synchronized (held) {
      int n = 0;
      for (Socket s : held) {
        try {
          s.setSoTimeout(1);
          if (s.getInputStream().read(new byte[4096]) >= 0) {
            continue; // an ERROR frame: the agent is closing it
          }
        } catch (SocketTimeoutException e) {
          n++;
        } catch (IOException e) {
          // reset by the agent
        }
      }
      return n;
    }
  }

  /** Connections of this attack the agent did not refuse at once. */
  int held() {
    synchronized (held) {
      return held.size();
    }
  }

  /** Connections refused or closed at once, by {@code kind:CODE} (or {@code kind:closed}). */
  Map<String, Long> refused() {
    Map<String, Long> out = new TreeMap<>();
    refused.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  private void count(Kind kind, String what) {
    refused
        .computeIfAbsent(
            kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + what, k -> new LongAdder())
        .increment();
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    if (dribbling != null) {
      dribbling.join(5000);
    }
    synchronized (held) {
      held.forEach(IdleAttack::close);
      held.clear();
    }
    dribblers.forEach(IdleAttack::close);
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing to keep
    }
  }
}
