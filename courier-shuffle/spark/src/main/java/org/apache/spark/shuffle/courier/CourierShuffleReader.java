package org.apache.spark.shuffle.courier;

import java.io.InputStream;
import org.apache.spark.Aggregator;
import org.apache.spark.InterruptibleIterator;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.serializer.SerializerManager;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Option;
import scala.Product2;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Reads a reduce task's partitions from blocks that came through the Courier agent, then does what
 * Spark's own reader does with them, in the same order: decompress/decrypt ({@link
 * SerializerManager#wrapStream}), deserialise, count records, aggregate with the dependency's
 * aggregator (combiners if the map side combined), sort by the key ordering in an {@link
 * ExternalSorter} (spilling as Spark's does), all interruptible by task cancellation.
 */
final class CourierShuffleReader<K, C> implements ShuffleReader<K, C> {
  private final BaseShuffleHandle<K, ?, C> handle;
  private final CourierBlockFetcher blocks;
  private final TaskContext context;
  private final ShuffleReadMetricsReporter metrics;
  private final SerializerManager serializerManager;

  CourierShuffleReader(
      BaseShuffleHandle<K, ?, C> handle,
      CourierBlockFetcher blocks,
      TaskContext context,
      ShuffleReadMetricsReporter metrics,
      SerializerManager serializerManager) {
    this.handle = handle;
    this.blocks = blocks;
    this.context = context;
    this.metrics = metrics;
    this.serializerManager = serializerManager;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Iterator<Product2<K, C>> read() {
    ShuffleDependency<K, ?, C> dep = handle.dependency();
    SerializerInstance serializer = dep.serializer().newInstance();
    Iterator<Product2<Object, Object>> records = new Records(serializer);
    InterruptibleIterator<Product2<Object, Object>> interruptible =
        new InterruptibleIterator<>(context, records);
    Iterator<Product2<K, C>> aggregated;
    Option<Aggregator<K, ?, C>> agg = (Option) dep.aggregator();
    if (agg.isDefined()) {
      Aggregator a = agg.get();
      aggregated =
          dep.mapSideCombine()
              ? a.combineCombinersByKey((Iterator) interruptible, context)
              : a.combineValuesByKey((Iterator) interruptible, context);
    } else {
      aggregated = (Iterator) interruptible;
    }
    if (dep.keyOrdering().isDefined()) {
      ExternalSorter<K, C, C> sorter =
          SparkCompat.newSorter(context, dep.keyOrdering(), dep.serializer());
      // Spills and peak memory go into the task's metrics; the sorter stops with the task.
      return new InterruptibleIterator<>(
          context, sorter.insertAllAndUpdateMetrics((Iterator) aggregated));
    }
    return aggregated instanceof InterruptibleIterator
        ? aggregated
        : new InterruptibleIterator<>(context, aggregated);
  }

  /** Every record of every block, counted; merges the read metrics into the task's at the end. */
  private final class Records extends AbstractIterator<Product2<Object, Object>> {
    private final SerializerInstance serializer;
    private Iterator<scala.Tuple2<Object, Object>> current;
    private boolean merged;

    Records(SerializerInstance serializer) {
      this.serializer = serializer;
    }

    @Override
    public boolean hasNext() {
      while (current == null || !current.hasNext()) {
        if (!blocks.hasNext()) {
          if (!merged) {
            merged = true;
            context.taskMetrics().mergeShuffleReadMetrics();
          }
          return false;
        }
        CourierBlockFetcher.Fetched f = blocks.next();
        InputStream in = serializerManager.wrapStream(f.block, f.data);
        // The key/value iterator closes the stream after its last record.
        current = serializer.deserializeStream(in).asKeyValueIterator();
      }
      return true;
    }

    @Override
    public Product2<Object, Object> next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      metrics.incRecordsRead(1);
      return current.next();
    }
  }
}
