package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What the applications of a Spark testbed run do: how many run at once (the tenants), what each is
 * given to {@code spark-submit}, and how its result file turns into jobs.
 */
public interface Tenants {
  /** One line for reports. */
  String describe();

  /** How many applications run at once. */
  int apps();

  /** How many jobs (trace coflows, or queries) application {@code app} submits. */
  int jobCount(int app);

  /** The application's main class. */
  String mainClass();

  /** Class-file prefixes (slash-separated) the application's jar carries. */
  List<String> appClasses();

  /** More {@code --conf} settings (key=value) for every application. */
  List<String> conf();

  /** The driver's heap, in MiB. */
  int driverMemoryMb();

  /**
   * The application's arguments.
   *
   * @param app which application (0-based)
   * @param dir a directory of its own for inputs
   * @param out where it writes its results
   * @param go where the launcher writes the workload's start (epoch ms and a full stop) once every
   *     application said it is ready ({@link #waitsForGo})
   * @param executors how many executors it gets
   */
  List<String> args(int app, Path dir, Path out, Path go, int executors) throws IOException;

  /**
   * Whether the applications write {@code OUT.ready} once their executors are up and then wait for
   * the launcher's start; otherwise each starts its clock on its own.
   */
  boolean waitsForGo();

  /**
   * The jobs of application {@code app}'s result file: id, bytes (-1: take them from the event
   * log), seconds as the application timed them, digest or failure.
   */
  List<SparkTestbed.Job> results(int app, Path out) throws IOException;

  /** The job group (in the event log) of job {@code id}. */
  String group(String id);
}
