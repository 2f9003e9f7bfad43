package org.coflow.coda.instrument;

import java.net.Socket;
import net.bytebuddy.asm.Advice;
import org.coflow.coda.bootstrap.CodaHooks;

/**
 * Advice for the streams of a classic {@code java.net.Socket} (Hadoop's fetcher reads through
 * {@code HttpURLConnection}): on Java 13+ {@code java.net.Socket$SocketOutputStream} and {@code
 * $SocketInputStream}, whose field {@code parent} is the socket; on Java 11 {@code
 * java.net.SocketOutputStream.socketWrite} and {@code SocketInputStream.read}, field {@code
 * socket}. Writes are blocking: a paced one waits before it starts.
 */
final class SocketStreamAdvice {
  private SocketStreamAdvice() {}

  /** {@code write(byte[], int, int)} of the Java 13+ stream. */
  static final class Write {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter(@Advice.FieldValue("parent") Socket s, @Advice.Argument(2) int len) {
      boolean outer = CodaHooks.enter();
      if (outer) {
        CodaHooks.writeBudget(s, len, true);
      }
      return outer;
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.FieldValue("parent") Socket s,
        @Advice.Argument(2) int len,
        @Advice.Enter boolean outer,
        @Advice.Thrown Throwable thrown) {
      if (outer) {
        CodaHooks.exit();
        if (thrown == null) {
          CodaHooks.written(s, len);
        }
      }
    }
  }

  /** {@code write(int)} of the Java 13+ stream. */
  static final class WriteByte {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.FieldValue("parent") Socket s,
        @Advice.Enter boolean outer,
        @Advice.Thrown Throwable thrown) {
      if (outer) {
        CodaHooks.exit();
        if (thrown == null) {
          CodaHooks.written(s, 1);
        }
      }
    }
  }

  /** {@code read(byte[], int, int)} of the Java 13+ stream. */
  static final class Read {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.FieldValue("parent") Socket s,
        @Advice.Argument(0) byte[] b,
        @Advice.Argument(1) int off,
        @Advice.Enter boolean outer,
        @Advice.Return int n) {
      if (outer) {
        CodaHooks.exit();
        CodaHooks.received(s, b, off, n);
      }
    }
  }

  /** {@code read()} of the Java 13+ stream. */
  static final class ReadByte {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.FieldValue("parent") Socket s, @Advice.Enter boolean outer, @Advice.Return int b) {
      if (outer) {
        CodaHooks.exit();
        if (b >= 0) {
          CodaHooks.received(s, 1L);
        }
      }
    }
  }

  /** Java 11: {@code java.net.SocketOutputStream.socketWrite(byte[], int, int)}. */
  static final class Write11 {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter(@Advice.FieldValue("socket") Socket s, @Advice.Argument(2) int len) {
      boolean outer = CodaHooks.enter();
      if (outer) {
        CodaHooks.writeBudget(s, len, true);
      }
      return outer;
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.FieldValue("socket") Socket s,
        @Advice.Argument(2) int len,
        @Advice.Enter boolean outer,
        @Advice.Thrown Throwable thrown) {
      if (outer) {
        CodaHooks.exit();
        if (thrown == null) {
          CodaHooks.written(s, len);
        }
      }
    }
  }

  /** Java 11: {@code java.net.SocketInputStream.read(byte[], int, int, int)}. */
  static final class Read11 {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.FieldValue("socket") Socket s,
        @Advice.Argument(0) byte[] b,
        @Advice.Argument(1) int off,
        @Advice.Enter boolean outer,
        @Advice.Return int n) {
      if (outer) {
        CodaHooks.exit();
        CodaHooks.received(s, b, off, n);
      }
    }
  }
}
