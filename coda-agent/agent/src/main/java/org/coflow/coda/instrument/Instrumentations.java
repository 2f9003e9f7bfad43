package org.coflow.coda.instrument;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;
import org.coflow.coda.CodaLog;
import org.coflow.coda.bootstrap.CodaHooks;

/**
 * Installs the advice into the JDK's socket classes. Only named JDK types are matched, never a
 * hierarchy or {@code any()}; classes already loaded (all of them, at premain) are retransformed,
 * which inlines the advice without changing any class's shape.
 */
public final class Instrumentations {
  private Instrumentations() {}

  /**
   * Instruments the JDK classes; returns the transformer (to remove it again).
   *
   * @param pace whether to install the selection-key advice pacing needs
   */
  public static ClassFileTransformer install(Instrumentation inst, boolean pace) {
    AgentBuilder b =
        new AgentBuilder.Default()
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            .with(AgentBuilder.TypeStrategy.Default.DECORATE)
            .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
            .with(new ErrorListener())
            .ignore(net.bytebuddy.matcher.ElementMatchers.none())
            .assureReadEdgeTo(inst, CodaHooks.class);
    b =
        on(
            b,
            "sun.nio.ch.SocketChannelImpl",
            SocketChannelAdvice.Write.class,
            named("write").and(takesArguments(ByteBuffer.class)),
            SocketChannelAdvice.GatheringWrite.class,
            named("write").and(takesArguments(ByteBuffer[].class, int.class, int.class)),
            SocketChannelAdvice.Read.class,
            named("read").and(takesArguments(ByteBuffer.class)),
            SocketChannelAdvice.ScatteringRead.class,
            named("read").and(takesArguments(ByteBuffer[].class, int.class, int.class)),
            SocketChannelAdvice.BlockingWrite.class,
            named("blockingWriteFully").and(takesArguments(byte[].class, int.class, int.class)),
            SocketChannelAdvice.BlockingRead.class,
            named("blockingRead")
                .and(takesArguments(byte[].class, int.class, int.class, long.class)),
            SocketChannelAdvice.Close.class,
            named("implCloseSelectableChannel").and(takesArguments(0)));
    b =
        on(
            b,
            "sun.nio.ch.FileChannelImpl",
            FileChannelAdvice.TransferTo.class,
            named("transferTo")
                .and(takesArguments(3))
                .and(takesArgument(2, WritableByteChannel.class))
                .and(isPublic()),
            FileChannelAdvice.TransferFrom.class,
            named("transferFrom")
                .and(takesArguments(3))
                .and(takesArgument(0, ReadableByteChannel.class))
                .and(isPublic()));
    b =
        on(
            b,
            "java.net.Socket$SocketOutputStream",
            SocketStreamAdvice.Write.class,
            named("write").and(takesArguments(byte[].class, int.class, int.class)),
            SocketStreamAdvice.WriteByte.class,
            named("write").and(takesArguments(int.class)));
    b =
        on(
            b,
            "java.net.Socket$SocketInputStream",
            SocketStreamAdvice.Read.class,
            named("read").and(takesArguments(byte[].class, int.class, int.class)),
            SocketStreamAdvice.ReadByte.class,
            named("read").and(takesArguments(0)));
    b =
        on(
            b,
            "java.net.SocketOutputStream",
            SocketStreamAdvice.Write11.class,
            named("socketWrite").and(takesArguments(byte[].class, int.class, int.class)));
    b =
        on(
            b,
            "java.net.SocketInputStream",
            SocketStreamAdvice.Read11.class,
            named("read").and(takesArguments(byte[].class, int.class, int.class, int.class)));
    if (pace) {
      b =
          on(
              b,
              "sun.nio.ch.SelectionKeyImpl",
              SelectionKeyAdvice.InterestOps.class,
              named("interestOps").and(takesArguments(int.class)));
    }
    return b.installOn(inst);
  }

  /** Pairs of (advice class, method matcher) on one named type. */
  private static AgentBuilder on(AgentBuilder b, String type, Object... adviceAndMethods) {
    return b.type(named(type))
        .transform(
            (builder, td, cl, module, pd) -> {
              for (int i = 0; i < adviceAndMethods.length; i += 2) {
                @SuppressWarnings("unchecked")
                ElementMatcher<? super MethodDescription> m =
                    (ElementMatcher<? super MethodDescription>) adviceAndMethods[i + 1];
                builder = builder.visit(Advice.to((Class<?>) adviceAndMethods[i]).on(m));
              }
              return builder;
            });
  }

  /** Logs (once per type) a class the agent could not instrument; the class stays as it was. */
  private static final class ErrorListener extends AgentBuilder.Listener.Adapter {
    @Override
    public void onError(
        String typeName,
        ClassLoader classLoader,
        net.bytebuddy.utility.JavaModule module,
        boolean loaded,
        Throwable throwable) {
      CodaLog.once(
          "instrument:" + typeName,
          "could not instrument " + typeName + "; its traffic is not seen: " + throwable);
    }
  }
}
