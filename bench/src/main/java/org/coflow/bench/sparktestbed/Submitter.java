package org.coflow.bench.sparktestbed;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How the Spark testbed reaches one Spark release: its home (for the standalone daemons), its
 * {@code spark-submit} command lines with and without the plugin, and the plugin's executor metrics
 * as Spark's CSV sink wrote them. The launcher's commands provide it.
 */
public interface Submitter {
  /** The release's Spark home ({@code bin/spark-class}, its jars). */
  Path sparkHome() throws IOException;

  /**
   * {@code spark-submit --master MASTER} and the settings that install the plugin ({@code plugin})
   * or nothing of this project.
   */
  List<String> command(String master, boolean plugin);

  /** Starts {@code cmd} with its output in {@code log} and the driver on {@code localIp}. */
  Process start(List<String> cmd, Path log, String localIp) throws IOException;

  /** Per executor, the plugin's metrics in a CSV sink's directory. */
  Map<String, Map<String, Long>> executorMetrics(Path dir) throws IOException;
}
