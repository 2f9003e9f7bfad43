package org.coflow.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A whole comparison on the testbed: builds the network once, writes the workload's map outputs
 * once, then runs every setup on them ({@code repeat} rounds, each round every setup in turn, so
 * that a slow spell of a shared machine does not land on one setup only), and tears it all down.
 */
public final class TestbedBench {
  /** What to compare and on what. */
  public record Plan(
      int hosts,
      Network.Link link,
      Workload workload,
      List<Setup> setups,
      int repeat,
      int fetchers,
      long timeoutSeconds,
      Path out) {}

  /** The runs of each setup, in the plan's order. */
  public record Outcome(Plan plan, Map<Setup, List<RunResult>> runs) {}

  private TestbedBench() {}

  public static Outcome run(Plan plan, TestbedRun.Progress progress) throws Exception {
    Path data = Files.createDirectories(plan.out().resolve("data"));
    Map<Setup, List<RunResult>> runs = new LinkedHashMap<>();
    for (Setup s : plan.setups()) {
      runs.put(s, new ArrayList<>());
    }
    try (Network net = Network.create(plan.hosts(), plan.link())) {
      long[][] expected = MapOutputs.write(plan.workload(), data);
      TestbedRun run =
          new TestbedRun(
              net,
              plan.workload(),
              data,
              expected,
              plan.out().resolve("logs"),
              plan.link().bitsPerSecond() / 8,
              plan.fetchers(),
              plan.timeoutSeconds());
      for (int round = 0; round < plan.repeat(); round++) {
        for (Setup s : plan.setups()) {
          runs.get(s).add(run.run(s, progress));
        }
      }
    } finally {
      deleteTree(data);
    }
    return new Outcome(plan, runs);
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
