package org.coflow.courier.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.client.CourierClient;

/** Two coflows' blocks fetched at once over one client: who got how far when the other finished. */
public final class Race {
  private Race() {}

  /**
   * Requests {@code first} (coflow {@code firstCoflow}), then {@code second}, streamed with {@code
   * window}; waits for both and checks their lengths.
   *
   * @return bytes of the first block received when the second completed
   */
  public static long firstBytesWhenSecondDone(
      CourierClient client,
      String firstCoflow,
      RemoteBlock first,
      String secondCoflow,
      RemoteBlock second,
      long size,
      long window)
      throws Exception {
    AtomicLong firstBytes = new AtomicLong();
    CompletableFuture<Long> a =
        client
            .fetch(
                firstCoflow, List.of(first), d -> firstBytes.addAndGet(d.readableBytes()), window)
            .get(0);
    CompletableFuture<Long> b = client.fetch(secondCoflow, List.of(second), d -> {}, window).get(0);
    long[] atSecond = {-1};
    b.thenRun(() -> atSecond[0] = firstBytes.get());
    assertEquals(size, b.get(30, TimeUnit.SECONDS));
    assertEquals(size, a.get(30, TimeUnit.SECONDS));
    Thread.sleep(50);
    return atSecond[0];
  }
}
