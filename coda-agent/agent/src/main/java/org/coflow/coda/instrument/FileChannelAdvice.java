package org.coflow.coda.instrument;

import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import net.bytebuddy.asm.Advice;
import org.coflow.coda.bootstrap.CodaHooks;

/**
 * Advice for {@code sun.nio.ch.FileChannelImpl}: {@code transferTo} into a socket is how Spark and
 * Hadoop's ShuffleHandler send shuffle files (Netty file regions, {@code sendfile}); {@code
 * transferFrom} a socket is a receive. Transfers between files are left alone.
 */
final class FileChannelAdvice {
  private FileChannelAdvice() {}

  /** {@code long transferTo(long position, long count, WritableByteChannel target)}. */
  static final class TransferTo {
    @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(
        @Advice.Argument(value = 1, readOnly = false) long count,
        @Advice.Argument(2) WritableByteChannel target,
        @Advice.Local("outer") boolean outer) {
      if (!(target instanceof SocketChannel)) {
        return false;
      }
      outer = CodaHooks.enter();
      if (!outer) {
        return false;
      }
      long budget = CodaHooks.writeBudget(target, count, ((SelectableChannel) target).isBlocking());
      if (budget <= 0) {
        return true;
      }
      if (budget < count) {
        count = budget;
      }
      return false;
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.Argument(2) WritableByteChannel target,
        @Advice.Enter boolean skipped,
        @Advice.Return(readOnly = false) long sent,
        @Advice.Local("outer") boolean outer) {
      if (skipped) {
        sent = 0;
      }
      if (outer) {
        CodaHooks.exit();
        CodaHooks.written(target, sent);
      }
    }
  }

  /** {@code long transferFrom(ReadableByteChannel src, long position, long count)}. */
  static final class TransferFrom {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter(@Advice.Argument(0) ReadableByteChannel src) {
      return src instanceof SocketChannel && CodaHooks.enter();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.Argument(0) ReadableByteChannel src,
        @Advice.Enter boolean outer,
        @Advice.Return long n) {
      if (outer) {
        CodaHooks.exit();
        CodaHooks.received(src, n);
      }
    }
  }
}
