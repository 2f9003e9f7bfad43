package org.coflow.stress.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector at PARANOID, every {@code LEAK:} report recorded, as the agent's own tests
 * do ({@code LeakCheck}). Where they install a detector factory before the first buffer exists,
 * this listens on the buffers' detector itself, which works whatever ran before in the test JVM:
 * the detector is created once, when the first buffer class loads.
 */
final class NettyLeaks {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
  private static boolean installed;

  private NettyLeaks() {}

  static synchronized void install() throws ReflectiveOperationException {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    if (installed) {
      return;
    }
    Field f = Class.forName("io.netty.buffer.AbstractByteBuf").getDeclaredField("leakDetector");
    f.setAccessible(true);
    ResourceLeakDetector<?> detector = (ResourceLeakDetector<?>) f.get(null);
    detector.setLeakListener((type, records) -> LEAKS.add("LEAK: " + type + records));
    installed = true;
  }

  /**
   * Collects garbage and allocates, so that pending reports come out, then returns and forgets
   * every report so far.
   */
  static List<String> collect() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
      for (int j = 0; j < 64; j++) {
        ByteBuf a = UnpooledByteBufAllocator.DEFAULT.buffer(16);
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(16);
        a.release();
        b.release();
      }
    }
    List<String> out = new ArrayList<>(LEAKS);
    LEAKS.clear();
    return out;
  }
}
