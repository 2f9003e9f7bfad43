package org.coflow.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.task.reduce.CourierShuffle;
import org.coflow.courier.mapreduce.CourierShuffleHandler;
import org.coflow.mr.jobs.TextJobs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A NodeManager's agent dies in the middle of a job's shuffle (its links capped so that the shuffle
 * takes seconds): the reducers finish through the stock shuffle, which the NodeManager still runs,
 * and the output is exactly the word count of the input.
 */
class AgentFaultTest {
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void jobSurvivesAnAgentKilledMidShuffle() throws Exception {
    Path work = Files.createTempDirectory("courier-mr-fault");
    MapReduceDifferentialTest.writeText(work.resolve("in"), 4, 30_000, 3);
    try (MasterProcess master = MasterProcess.start(MapReduceDifferentialTest.ROOT, "aalo");
        CourierMiniCluster cluster =
            CourierMiniCluster.start("courier-fault", 2, master.address(), "4m")) {
      Configuration conf = cluster.config();
      conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, CourierMiniCluster.PLUGIN);
      // Reducers start once every map is done: the shuffle is then all that runs.
      conf.setFloat("mapreduce.job.reduce.slowstart.completedmaps", 1.0f);
      Job job =
          TextJobs.wordCount(
              conf,
              "fault-wc",
              new org.apache.hadoop.fs.Path(work.resolve("in").toUri()),
              new org.apache.hadoop.fs.Path(work.resolve("out").toUri()),
              2,
              false);
      job.submit();
      long deadline = System.currentTimeMillis() + TimeUnit.MINUTES.toMillis(5);
      while (job.reduceProgress() <= 0f
          && !job.isComplete()
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
      }
      assertTrue(!job.isComplete(), "the job ended before its shuffle could be interrupted");
      List<CourierShuffleHandler> handlers = cluster.handlers();
      assertEquals(2, handlers.size());
      CourierShuffleHandler victim = handlers.get(0);
      assertNotNull(victim.agent());
      victim.stopAgent();
      assertTrue(
          job.waitForCompletion(false), "the job failed: " + job.getStatus().getFailureInfo());
      Counters c = job.getCounters();
      long viaStock =
          c.findCounter(CourierShuffle.COUNTERS, CourierShuffle.MAPS_VIA_STOCK).getValue();
      long viaAgent =
          c.findCounter(CourierShuffle.COUNTERS, CourierShuffle.MAPS_VIA_AGENT).getValue();
      long maps = c.findCounter(org.apache.hadoop.mapreduce.TaskCounter.SHUFFLED_MAPS).getValue();
      // After the kill, some map outputs cannot have come through the agents: they came through
      // the stock fetch, either per host after an agent failed (counted) or for a whole reduce
      // attempt that found no agent at its start (Hadoop's own Shuffle, which counts nothing).
      assertTrue(
          viaAgent < maps,
          "every map output came through the agents: the agent died after the shuffle ("
              + viaAgent
              + " of "
              + maps
              + ")");
      assertTrue(
          viaStock + viaAgent <= maps,
          "no map output counted twice: " + viaStock + " + " + viaAgent + " of " + maps);
      assertEquals(wordCount(work.resolve("in")), parse(work.resolve("out")));
      System.out.printf(
          "fault: %d map outputs through the agents, %d through the stock shuffle%n",
          viaAgent, viaStock);
    }
  }

  private static Map<String, Integer> wordCount(Path dir) throws IOException {
    Map<String, Integer> counts = new HashMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        for (String line : Files.readAllLines(f)) {
          for (String w : line.trim().split("\\s+")) {
            if (!w.isEmpty()) {
              counts.merge(w, 1, Integer::sum);
            }
          }
        }
      }
    }
    return counts;
  }

  private static Map<String, Integer> parse(Path out) throws IOException {
    Map<String, Integer> counts = new HashMap<>();
    try (Stream<Path> files = Files.list(out)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (!f.getFileName().toString().startsWith("part-")) {
          continue;
        }
        for (String line : Files.readAllLines(f)) {
          String[] kv = line.split("\t");
          assertEquals(null, counts.put(kv[0], Integer.parseInt(kv[1])), "word twice: " + kv[0]);
        }
      }
    }
    return counts;
  }
}
