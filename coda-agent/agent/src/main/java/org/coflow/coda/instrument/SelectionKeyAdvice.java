package org.coflow.coda.instrument;

import java.nio.channels.SelectionKey;
import net.bytebuddy.asm.Advice;
import org.coflow.coda.bootstrap.CodaHooks;

/**
 * Advice for {@code sun.nio.ch.SelectionKeyImpl.interestOps(int)}: Netty asks for {@code OP_WRITE}
 * when a write made no progress; on a paced connection the socket is writable, so the selector
 * would wake at once and the event loop spin. The agent drops {@code OP_WRITE} until the flow's
 * budget is back and then sets it itself ({@code interestOpsOr}, not instrumented).
 */
final class SelectionKeyAdvice {
  private SelectionKeyAdvice() {}

  static final class InterestOps {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.This SelectionKey key, @Advice.Argument(value = 0, readOnly = false) int ops) {
      if ((ops & SelectionKey.OP_WRITE) != 0) {
        ops = CodaHooks.interestOps(key.channel(), key, ops);
      }
    }
  }
}
