package org.coflow.courier.enforce;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.coflow.courier.flow.FlowKey;

/**
 * The sending agent's pace of each (destination host, coflow) under a RATE policy: one token bucket
 * shared by every connection from that host, so the master's per-pair rate holds however the
 * fetching agent spreads the coflow's blocks over its connections (dividing the rate evenly among
 * connections starved a coflow whose blocks sat on a few of them). Thread-safe: connections run on
 * different event loops.
 */
public final class PaceTable {
  /** Entries not used for this long are dropped when the table grows (coflows end unannounced). */
  private static final long IDLE_NANOS = 60_000_000_000L;

  private static final int PRUNE_ABOVE = 1024;

  private static final class Entry {
    final LinkRate bucket;
    volatile long used = System.nanoTime(); // for pruning only: wall time is right here

    Entry(LinkRate bucket) {
      this.bucket = bucket;
    }
  }

  /** By flow: the coflow and the destination host. */
  private final Map<FlowKey, Entry> paces = new ConcurrentHashMap<>();

  private final int chunkSize;
  private final java.util.function.LongSupplier clock;

  public PaceTable(int chunkSize) {
    this(chunkSize, System::nanoTime);
  }

  /** As above, the buckets reading time (nanoseconds) from {@code clock}. */
  public PaceTable(int chunkSize, java.util.function.LongSupplier clock) {
    this.chunkSize = chunkSize;
    this.clock = clock;
  }

  /** The clock the buckets read (nanoseconds). */
  public long now() {
    return clock.getAsLong();
  }

  /** Paces {@code coflow} towards {@code dstHost} at {@code rate} bytes/s; 0 or less: unpaced. */
  public void set(String dstHost, String coflow, double rate) {
    FlowKey key = FlowKey.of(coflow, dstHost);
    if (rate <= 0) {
      paces.remove(key);
      return;
    }
    // A new rate keeps the bucket's tokens (Entry.rerated): the master decides every Δ, and a
    // fresh full bucket each time let a paced flow burst past its rate into shallow buffers.
    paces.compute(
        key,
        (k, old) ->
            old == null
                ? new Entry(LinkRate.withSlack(rate, chunkSize, clock))
                : old.bucket.bytesPerSecond() == rate
                    ? old
                    : new Entry(old.bucket.rerated(rate, chunkSize)));
    if (paces.size() > PRUNE_ABOVE) {
      long now = System.nanoTime();
      paces.values().removeIf(e -> now - e.used > IDLE_NANOS);
    }
  }

  /** The bucket pacing {@code coflow} towards {@code dstHost}, or null if it is not paced. */
  public LinkRate get(String dstHost, String coflow) {
    if (paces.isEmpty()) {
      return null; // the common case (no RATE schedule): asked for every chunk, so no key is built
    }
    Entry e = paces.get(FlowKey.of(coflow, dstHost));
    if (e == null) {
      return null;
    }
    e.used = System.nanoTime();
    return e.bucket;
  }
}
