package org.coflow.courier.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test whose code leaked a Netty buffer: every leak Netty's (PARANOID) detector reports,
 * the {@code LEAK:} lines, is recorded, and after each test the garbage collector is run and
 * buffers allocated so that pending reports come out.
 */
public final class LeakCheck implements BeforeAllCallback, AfterEachCallback {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
  private static volatile boolean installed;

  @Override
  public void beforeAll(ExtensionContext context) {
    install();
  }

  static synchronized void install() {
    if (installed) {
      return;
    }
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(
        new ResourceLeakDetectorFactory() {
          @Override
          @SuppressWarnings("deprecation")
          public <T> ResourceLeakDetector<T> newResourceLeakDetector(
              Class<T> resource, int samplingInterval, long maxActive) {
            return new ResourceLeakDetector<T>(resource, samplingInterval, maxActive) {
              @Override
              protected void reportTracedLeak(String resourceType, String records) {
                LEAKS.add("LEAK: " + resourceType + records);
                super.reportTracedLeak(resourceType, records);
              }

              @Override
              protected void reportUntracedLeak(String resourceType) {
                LEAKS.add("LEAK: " + resourceType);
                super.reportUntracedLeak(resourceType);
              }
            };
          }
        });
    installed = true;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(20);
      // Allocations are what make the detector look at collected, unreleased buffers.
      for (int j = 0; j < 64; j++) {
        ByteBuf a = UnpooledByteBufAllocator.DEFAULT.buffer(16);
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(16);
        a.release();
        b.release();
      }
    }
    if (!LEAKS.isEmpty()) {
      String report = String.join("\n", LEAKS);
      LEAKS.clear();
      throw new AssertionError("Netty buffers leaked:\n" + report);
    }
  }
}
