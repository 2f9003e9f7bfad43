package org.apache.spark.shuffle.courier;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Option;
import scala.math.Ordering;

/**
 * The Spark calls whose Java signature is not the same on every Spark this source is built for (3.5
 * on Scala 2.12; 4.0 to 4.3 on Scala 2.13, one jar for all four). Scala default arguments are not
 * Java overloads, so a constructor that gained a defaulted parameter no longer links from Java code
 * compiled against the older form; such calls are chosen here once, by the shape the running Spark
 * has, and fail with a message naming the Spark version if it has none we know.
 */
final class SparkCompat {
  /** The running Spark's constructor, found on first use (null until then). */
  private static volatile Constructor<?> sorter;

  /** Empty {@code rowBasedChecksums} (Spark 4.1+), or null on Sparks without that parameter. */
  private static volatile Object noRowChecksums;

  private SparkCompat() {}

  /**
   * A sorter by {@code ordering} with no aggregator and no partitioner, as Spark's own reader makes
   * one: {@code ExternalSorter(context, None, None, ordering, serializer)} on 3.5 and 4.0, and with
   * an empty {@code rowBasedChecksums} on 4.1+ (SPARK-51756; checksums are a map-side matter).
   */
  @SuppressWarnings("unchecked")
  static <K, C> ExternalSorter<K, C, C> newSorter(
      TaskContext context, Option<Ordering<K>> ordering, Serializer serializer) {
    Constructor<?> c = sorter;
    if (c == null) {
      // Thrown on every call if the running Spark has none we know (a static initializer would
      // bury the message under NoClassDefFoundError after the first task).
      c = sorterConstructor();
      noRowChecksums =
          c.getParameterCount() == 6
              ? Array.newInstance(c.getParameterTypes()[5].getComponentType(), 0)
              : null;
      sorter = c;
    }
    Object checksums = noRowChecksums;
    Object[] args =
        c.getParameterCount() == 5
            ? new Object[] {context, Option.empty(), Option.empty(), ordering, serializer}
            : new Object[] {
              context, Option.empty(), Option.empty(), ordering, serializer, checksums
            };
    try {
      return (ExternalSorter<K, C, C>) c.newInstance(args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException(cause);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot construct Spark's ExternalSorter: " + e, e);
    }
  }

  /** The running Spark's {@code ExternalSorter} constructor: 5 parameters, or 6 on 4.1+. */
  private static Constructor<?> sorterConstructor() {
    for (Constructor<?> c : ExternalSorter.class.getConstructors()) {
      Class<?>[] p = c.getParameterTypes();
      boolean common =
          p.length >= 5
              && p[0] == TaskContext.class
              && p[1] == Option.class
              && p[2] == Option.class
              && p[3] == Option.class
              && p[4] == Serializer.class;
      if (common && (p.length == 5 || (p.length == 6 && p[5].isArray()))) {
        return c;
      }
    }
    throw new IllegalStateException(
        "Courier: Spark "
            + org.apache.spark.package$.MODULE$.SPARK_VERSION()
            + " has no ExternalSorter constructor this plugin knows (3.5 and 4.0-4.3 have one);"
            + " use the courier-spark jar built for this Spark line");
  }
}
