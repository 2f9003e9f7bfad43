package org.coflow.coda.instrument;

import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import net.bytebuddy.asm.Advice;
import org.coflow.coda.bootstrap.CodaHooks;

/** Advice for {@code sun.nio.ch.SocketChannelImpl}: reads, writes (single and gathering), close. */
final class SocketChannelAdvice {
  private SocketChannelAdvice() {}

  /** {@code int write(ByteBuffer)}: a paced non-blocking write sees a shorter buffer. */
  static final class Write {
    @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(
        @Advice.This Object ch,
        @Advice.Argument(value = 0, readOnly = false) ByteBuffer src,
        @Advice.Local("orig") ByteBuffer orig,
        @Advice.Local("outer") boolean outer) {
      outer = CodaHooks.enter();
      if (!outer) {
        return false;
      }
      int want = src.remaining();
      long budget = CodaHooks.writeBudget(ch, want, ((SelectableChannel) ch).isBlocking());
      if (budget <= 0) {
        return true;
      }
      if (budget < want) {
        orig = src;
        ByteBuffer d = src.duplicate();
        d.limit(d.position() + (int) budget);
        src = d;
      }
      return false;
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object ch,
        @Advice.Enter boolean skipped,
        @Advice.Return(readOnly = false) int written,
        @Advice.Local("orig") ByteBuffer orig,
        @Advice.Local("outer") boolean outer) {
      if (skipped) {
        written = 0;
      }
      if (orig != null && written > 0) {
        orig.position(orig.position() + written);
      }
      if (outer) {
        CodaHooks.exit();
        CodaHooks.written(ch, written);
      }
    }
  }

  /**
   * {@code long write(ByteBuffer[], int, int)}: a paced non-blocking write is given only the
   * buffers that fit its budget (at least one, so a budget smaller than a buffer is a debt).
   */
  static final class GatheringWrite {
    @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(
        @Advice.This Object ch,
        @Advice.Argument(0) ByteBuffer[] srcs,
        @Advice.Argument(1) int offset,
        @Advice.Argument(value = 2, readOnly = false) int length,
        @Advice.Local("outer") boolean outer) {
      outer = CodaHooks.enter();
      if (!outer) {
        return false;
      }
      long want = 0;
      for (int i = offset; i < offset + length; i++) {
        want += srcs[i].remaining();
      }
      long budget = CodaHooks.writeBudget(ch, want, ((SelectableChannel) ch).isBlocking());
      if (budget <= 0) {
        return true;
      }
      if (budget < want) {
        long sum = 0;
        int n = 0;
        while (n < length && (n == 0 || sum + srcs[offset + n].remaining() <= budget)) {
          sum += srcs[offset + n].remaining();
          n++;
        }
        length = n;
      }
      return false;
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object ch,
        @Advice.Enter boolean skipped,
        @Advice.Return(readOnly = false) long written,
        @Advice.Local("outer") boolean outer) {
      if (skipped) {
        written = 0;
      }
      if (outer) {
        CodaHooks.exit();
        CodaHooks.written(ch, written);
      }
    }
  }

  /** {@code int read(ByteBuffer)}: the bytes read are shown to the label sniffer. */
  static final class Read {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object ch,
        @Advice.Argument(0) ByteBuffer dst,
        @Advice.Enter boolean outer,
        @Advice.Return int n) {
      if (outer) {
        CodaHooks.exit();
        CodaHooks.received(ch, dst, n);
      }
    }
  }

  /** {@code long read(ByteBuffer[], int, int)}: counted only. */
  static final class ScatteringRead {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.This Object ch, @Advice.Enter boolean outer, @Advice.Return long n) {
      if (outer) {
        CodaHooks.exit();
        CodaHooks.received(ch, n);
      }
    }
  }

  /**
   * Java 13+: {@code void blockingWriteFully(byte[], int, int)}, what the streams of {@code
   * SocketChannel.socket()} write through.
   */
  static final class BlockingWrite {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter(@Advice.This Object ch, @Advice.Argument(2) int len) {
      boolean outer = CodaHooks.enter();
      if (outer) {
        CodaHooks.writeBudget(ch, len, true);
      }
      return outer;
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object ch,
        @Advice.Argument(2) int len,
        @Advice.Enter boolean outer,
        @Advice.Thrown Throwable thrown) {
      if (outer) {
        CodaHooks.exit();
        if (thrown == null) {
          CodaHooks.written(ch, len);
        }
      }
    }
  }

  /** Java 13+: {@code int blockingRead(byte[], int, int, long)}, for {@code socket()} streams. */
  static final class BlockingRead {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object ch,
        @Advice.Argument(0) byte[] b,
        @Advice.Argument(1) int off,
        @Advice.Enter boolean outer,
        @Advice.Return int n) {
      if (outer) {
        CodaHooks.exit();
        CodaHooks.received(ch, b, off, n);
      }
    }
  }

  /** {@code implCloseSelectableChannel()}. */
  static final class Close {
    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.This Object ch) {
      CodaHooks.closed(ch);
    }
  }
}
