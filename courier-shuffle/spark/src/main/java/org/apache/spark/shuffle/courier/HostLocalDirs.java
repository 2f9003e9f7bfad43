package org.apache.spark.shuffle.courier;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.HostLocalDirManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.collection.immutable.Map;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;
import scala.util.Try;

/**
 * The local directories of another executor on this executor's host, so that its shuffle files are
 * read from disk rather than sent through two agents and the loopback: the blocks Spark's own
 * reader reads from disk ({@code spark.shuffle.readHostLocalDisk}, on by default), found the way it
 * finds them (Spark's cache of host-local directories, else a request to that executor's block
 * manager or to the host's external shuffle service). Such blocks do not cross the network, so they
 * are not part of the network coflow the agents schedule.
 */
final class HostLocalDirs {
  private static final Logger LOG = LoggerFactory.getLogger(HostLocalDirs.class);

  private HostLocalDirs() {}

  /**
   * {@code location}'s directories if Spark would read its blocks from disk here, else null: Spark
   * reads host-local blocks only with {@code spark.shuffle.readHostLocalDisk} on (and the old fetch
   * protocol off), which is when the block manager has a directory manager. Null as well (logged)
   * when the directories cannot be had within {@code timeoutMillis}; the blocks then go through the
   * agents like any other executor's.
   */
  static String[] of(BlockManager self, BlockManagerId location, long timeoutMillis) {
    Option<HostLocalDirManager> manager = self.hostLocalDirManager();
    BlockManagerId me = self.blockManagerId();
    if (manager.isEmpty()
        || !location.host().equals(me.host())
        || location.executorId().equals(me.executorId())) {
      return null;
    }
    String executor = location.executorId();
    Option<String[]> cached = manager.get().getCachedHostLocalDirsFor(executor);
    if (cached.isDefined()) {
      return cached.get();
    }
    // Spark asks the host's shuffle service when there is one, else the executor itself.
    boolean service = self.externalShuffleServiceEnabled();
    String host = service ? me.host() : location.host();
    int port = service ? self.externalShuffleServicePort() : location.port();
    CompletableFuture<String[]> dirs = new CompletableFuture<>();
    manager
        .get()
        .getHostLocalDirs(
            host,
            port,
            new String[] {executor},
            new AbstractFunction1<Try<Map<String, String[]>>, BoxedUnit>() {
              @Override
              public BoxedUnit apply(Try<Map<String, String[]>> result) {
                if (result.isSuccess()) {
                  Option<String[]> d = result.get().get(executor);
                  dirs.complete(d.isDefined() ? d.get() : null);
                } else {
                  dirs.completeExceptionally(result.failed().get());
                }
                return BoxedUnit.UNIT;
              }
            });
    try {
      String[] found = dirs.get(timeoutMillis, TimeUnit.MILLISECONDS);
      if (found == null) {
        LOG.warn(
            "Courier: {} at {}:{} did not name the local directories of executor {}; its blocks"
                + " go through the agents",
            service ? "the external shuffle service" : "the block manager",
            host,
            port,
            executor);
      }
      return found;
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn(
          "Courier: could not learn the local directories of executor {} on this host ({}); its"
              + " blocks go through the agents",
          executor,
          e instanceof TimeoutException
              ? "no answer in " + timeoutMillis + " ms"
              : String.valueOf(e.getCause()));
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
