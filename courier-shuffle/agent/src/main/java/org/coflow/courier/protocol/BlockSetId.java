package org.coflow.courier.protocol;

import java.util.Objects;

/**
 * The name of what a local process registered with its agent, as {@code BlockRef.block_set} carries
 * it: a Spark executor's shuffle files ({@code spark/<application>/<executor>}) or a MapReduce
 * job's map outputs ({@code mr/<job>}). Built and parsed only here. Immutable.
 */
public final class BlockSetId {
  /** The engine whose files a set names. */
  public enum Engine {
    SPARK("spark"),
    MAPREDUCE("mr");

    private final String prefix;

    Engine(String prefix) {
      this.prefix = prefix;
    }
  }

  private final Engine engine;
  private final String application;
  private final String executor;

  private BlockSetId(Engine engine, String application, String executor) {
    this.engine = engine;
    this.application = application;
    this.executor = executor;
  }

  /** Spark executor {@code executorId}'s files of application {@code appId}. */
  public static BlockSetId spark(String appId, String executorId) {
    requireSegment(appId, "application id");
    requireSegment(executorId, "executor id");
    return new BlockSetId(Engine.SPARK, appId, executorId);
  }

  /** MapReduce job {@code jobId}'s map outputs. */
  public static BlockSetId mapReduce(String jobId) {
    requireSegment(jobId, "job id");
    return new BlockSetId(Engine.MAPREDUCE, jobId, null);
  }

  /**
   * Parses a {@code block_set} from the wire.
   *
   * @throws IllegalArgumentException naming the value, when it is neither form
   */
  public static BlockSetId parse(String text) {
    String[] parts = text == null ? new String[0] : text.split("/", -1);
    if (parts.length == 3
        && parts[0].equals(Engine.SPARK.prefix)
        && !parts[1].isEmpty()
        && !parts[2].isEmpty()) {
      return new BlockSetId(Engine.SPARK, parts[1], parts[2]);
    }
    if (parts.length == 2 && parts[0].equals(Engine.MAPREDUCE.prefix) && !parts[1].isEmpty()) {
      return new BlockSetId(Engine.MAPREDUCE, parts[1], null);
    }
    throw new IllegalArgumentException(
        "block set '" + text + "' is neither spark/<application>/<executor> " + "nor mr/<job>");
  }

  private static void requireSegment(String value, String what) {
    if (value == null || value.isEmpty() || value.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          what + " '" + value + "' must be non-empty and contain no '/'");
    }
  }

  public Engine engine() {
    return engine;
  }

  /** The Spark application id, or the MapReduce job id. */
  public String application() {
    return application;
  }

  /** The Spark executor id; null for MapReduce. */
  public String executor() {
    return executor;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BlockSetId)) {
      return false;
    }
    BlockSetId b = (BlockSetId) o;
    return engine == b.engine
        && application.equals(b.application)
        && Objects.equals(executor, b.executor);
  }

  @Override
  public int hashCode() {
    return Objects.hash(engine, application, executor);
  }

  /** The wire form. */
  @Override
  public String toString() {
    return executor == null
        ? engine.prefix + "/" + application
        : engine.prefix + "/" + application + "/" + executor;
  }
}
